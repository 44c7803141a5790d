/// How long the server waits for clients that have not sent what they should; a wait over
/// its limit closes the connection (HTTP) or the session (WebSocket), so that idle and slow
/// clients cannot hold the server's connections for ever.
public struct ServerTimeouts: Sendable, Hashable {
    /// From a connection's start to the end of its first request head (default 60 s, as
    /// nginx's `client_header_timeout`): a client that sends nothing, half a request line, or
    /// a header line every few seconds is answered 408 and closed when it is over.
    public var headerRead: Duration = .seconds(60)
    /// A kept-alive HTTP connection with no request in progress, from the end of the last
    /// answer to the end of the next request's head (default 60 s).
    public var idle: Duration = .seconds(60)
    /// A live session from which no message (frame or options) has come (default 120 s):
    /// closed with close code 1000 and a reason that says so.
    public var session: Duration = .seconds(120)

    /// The default timeouts.
    public init() {}

    /// Throws `ServerConfigurationError` for a timeout out of range.
    func validate() throws(ServerConfigurationError) {
        for (name, value) in [("headerRead", headerRead), ("idle", idle), ("session", session)]
        where value <= .zero || value > .seconds(86_400) {
            throw ServerConfigurationError("the \(name) timeout must be more than 0 and at most 86400 s, not \(value)")
        }
    }
}
