/// How many threads a frame runs on. With sharing on (`ServerConfiguration.sharesThreads`,
/// the default), `threadsPerTask` is split among the live sessions open and the HTTP requests
/// in progress, at least one each: a lone session's frames run on every core, and several
/// sessions run side by side on one thread each, which serves more frames in all than each
/// splitting its frames over the cores (docs/server.md has the load test's figures). With
/// sharing off, every frame runs on `threadsPerTask` threads.
struct ThreadShare: Sendable {
    let threadsPerTask: Int
    let sharing: Bool
    let sessions: SessionCounter
    let requests: SessionCounter

    /// The threads for a frame that starts now.
    var threadsPerFrame: Int {
        guard sharing else { return threadsPerTask }
        return Self.share(of: threadsPerTask, among: sessions.current + requests.current)
    }

    /// `threads` split among `users` (at least one each; none counts as one).
    static func share(of threads: Int, among users: Int) -> Int {
        max(1, threads / max(1, users))
    }
}
