import Foundation

/// Whether the server takes new work, as `GET /readyz` says: not while it starts (until it
/// listens and its models are loaded), not while it drains, and not when every live session
/// place is taken. A load balancer's health check sends new clients elsewhere meanwhile;
/// `GET /healthz` (liveness) stays 200 through all of it.
final class ServerReadiness: @unchecked Sendable {
    /// Why the server is not ready, in the `reason` of the 503 answer.
    enum Reason: String, Sendable, CaseIterable {
        /// The server is not listening yet (it reads its models before it listens).
        case starting
        /// A shutdown has begun (SIGTERM, SIGINT): the server takes no new work.
        case draining
        /// All `ServerConfiguration.maxSessions` live sessions are open.
        case noFreeSession

        /// The sentence of the 503 answer.
        var message: String {
            switch self {
            case .starting: return "the server is starting; its models are not loaded or it does not listen yet"
            case .draining: return "the server is shutting down and takes no new sessions or requests"
            case .noFreeSession: return "every live session place is taken; a new session would be refused"
            }
        }
    }

    private let lock = NSLock()
    private var listening = false

    /// The server listens (its models were loaded before).
    func started() { lock.withLock { listening = true } }

    /// The server is starting again (a new run of its application).
    func restarting() { lock.withLock { listening = false } }

    /// Why the server is not ready; nil when it is.
    func reason(draining: Bool, sessionsInUse: Int, sessionLimit: Int) -> Reason? {
        if !lock.withLock({ listening }) { return .starting }
        if draining { return .draining }
        if sessionsInUse >= sessionLimit { return .noFreeSession }
        return nil
    }
}
