import VisionTasks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `VisionServer` listens, how much it accepts and which models it runs
/// (`vision-tasks serve` fills it from its flags).
public struct ServerConfiguration: Sendable {
    /// The address to listen on (default 127.0.0.1: only this machine; `0.0.0.0` exposes the
    /// server to the network, which is the user's explicit choice).
    public var host = "127.0.0.1"
    /// The TCP port (default 8080; 0 picks a free one, reported by `VisionServer.onRunning`).
    public var port = 8080
    /// The most live sessions (WebSocket connections) open at once (default 8); one more is
    /// refused with a `tooManySessions` error message and close code 1013 (try again later).
    public var maxSessions = 8
    /// Limits on what clients send and on open connections.
    public var limits = ServerLimits()
    /// How long the server waits for clients.
    public var timeouts = ServerTimeouts()
    /// Origins whose pages may use the server besides its own (`http://HOST:PORT` of the names
    /// it listens on), each `scheme://host[:port]`, e.g. `https://vision.example.com` for a page
    /// served through a reverse proxy; their hosts are accepted as `Host` too. Other `Origin`
    /// and `Host` values are answered 403 (`OriginPolicy`).
    public var allowedOrigins: [String] = []
    /// How long a shutdown (SIGTERM, SIGINT, `triggerGracefulShutdown`) may take (default 10 s):
    /// new connections are refused at once, requests in progress finish, live sessions are
    /// closed with 1001 (going away); at the end, every connection still open is closed.
    public var drainDuration: Duration = .seconds(10)
    /// Threads each task instance runs its models on (default: one per active core).
    public var threadsPerTask = BaseOptions.defaultNumThreads
    /// Whether live sessions and HTTP requests share `threadsPerTask` (default true): a frame
    /// runs on `threadsPerTask` divided by the live sessions open and the requests in progress,
    /// at least one thread. A lone session then gets every core, and several sessions one thread
    /// each, which serves more frames than each splitting its frames over the cores. False:
    /// every frame runs on `threadsPerTask` threads.
    public var sharesThreads = true
    /// The model bundles.
    public var models: ServerModels
    /// The name of this replica (default: the machine's host name), sent as the
    /// `X-Vision-Tasks-Instance` header of every HTTP answer and as `instance` in a live
    /// session's first `ready` message, so that a client behind a load balancer can tell which
    /// replica served it. 1 to 128 visible ASCII characters (no spaces or control characters).
    public var instance = ServerConfiguration.defaultInstance
    /// HTTPS and WSS on `port` (`VisionTasksServerTLS`'s `ServerTLS`: a certificate and its
    /// key); nil, the default, for plain HTTP. With it the server's own origins are
    /// `https://NAME:PORT`.
    public var tls: (any ServerTransportSecurity)?

    /// Throws `ServerConfigurationError` for a setting out of range.
    func validate() throws(ServerConfigurationError) {
        guard (0...65535).contains(port) else { throw ServerConfigurationError("port must be from 0 to 65535, not \(port)") }
        guard maxSessions >= 1 else { throw ServerConfigurationError("maxSessions must be at least 1, not \(maxSessions)") }
        try limits.validate()
        try timeouts.validate()
        for origin in allowedOrigins where OriginPolicy.parseOrigin(origin) == nil {
            throw ServerConfigurationError(
                "allowed origin '\(origin)' is not an origin: give scheme://host[:port], e.g. https://vision.example.com or http://192.168.1.20:8080")
        }
        guard Self.isInstanceName(instance) else {
            throw ServerConfigurationError(
                "instance must be 1 to 128 visible ASCII characters (no spaces), not '\(instance.prefix(200))'")
        }
        guard drainDuration >= .zero, drainDuration <= .seconds(3600) else {
            throw ServerConfigurationError("drainDuration must be from 0 to 3600 s, not \(drainDuration)")
        }
    }

    /// Whether `origin` can be one of `allowedOrigins`: `scheme://host[:port]` with an http or
    /// https scheme and no path.
    public static func isOrigin(_ origin: String) -> Bool { OriginPolicy.parseOrigin(origin) != nil }

    /// Whether `name` can be `instance`: 1 to 128 visible ASCII characters (`!` to `~`), which
    /// an HTTP header value carries as they are.
    public static func isInstanceName(_ name: String) -> Bool {
        (1...128).contains(name.utf8.count) && name.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// The default `instance`: the machine's host name (a container's is its pod's name), or
    /// `vision-tasks` when it cannot be an instance name.
    public static let defaultInstance: String = {
        // gethostname, not Foundation's ProcessInfo.hostName, which may ask the resolver.
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "vision-tasks" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return isInstanceName(name) ? name : "vision-tasks"
    }()

    /// A configuration with the default settings and these models.
    public init(models: ServerModels) {
        self.models = models
    }
}

/// A `ServerConfiguration` that cannot be served: a limit or setting out of range.
public struct ServerConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the setting.
    public let description: String

    init(_ description: String) { self.description = description }
}

