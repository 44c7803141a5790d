import VisionTasks

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
    /// Limits on what clients send.
    public var limits = ServerLimits()
    /// Threads each task instance runs its models on (default: one per active core).
    public var threadsPerTask = BaseOptions.defaultNumThreads
    /// The model bundles.
    public var models: ServerModels

    /// Throws `ServerConfigurationError` for a setting out of range.
    func validate() throws(ServerConfigurationError) {
        guard (0...65535).contains(port) else { throw ServerConfigurationError("port must be from 0 to 65535, not \(port)") }
        guard maxSessions >= 1 else { throw ServerConfigurationError("maxSessions must be at least 1, not \(maxSessions)") }
        try limits.validate()
    }

    /// A configuration with the default settings and these models.
    public init(models: ServerModels) {
        self.models = models
    }
}

/// Limits on what a client may send; anything over them gets an error answer and the server
/// goes on.
public struct ServerLimits: Sendable, Hashable {
    /// The largest encoded image (a live frame or a request body), in bytes (default 8 MiB).
    /// A live frame over it closes its session with WebSocket code 1009 (message too big);
    /// a request body over it is answered 413.
    public var maxImageBytes = 8 << 20
    /// The largest image, in pixels (default 4096 × 4096), checked from the image's header
    /// before it is decoded.
    public var maxImagePixels = 4096 * 4096
    /// The largest text message on a live session (an options message), in bytes (default 64 KiB).
    public var maxTextBytes = 64 << 10
    /// The most HTTP task requests in progress at once, from the first byte of their body to
    /// the answer (default 16): one more is answered 503 `serverBusy` at once, before its body
    /// is read. Each holds up to `maxImageBytes` twice while it waits for a core, so this
    /// bounds the memory that many clients posting at once can take.
    public var maxPendingRequests = 16
    /// The longest a request's body may take to arrive, from the end of its headers (default
    /// 30 s): a slower client is answered 408 `requestTimeout` and its connection closed, so a
    /// client that trickles its body cannot hold one of the `maxPendingRequests` places for ever.
    public var maxBodyDuration: Duration = .seconds(30)

    /// The largest `maxImageBytes` and `maxTextBytes`: 1 GiB (a WebSocket message must stay
    /// below 4 GiB, and a request body is held in memory).
    public static let largestMessageBytes = 1 << 30

    /// The default limits.
    public init() {}

    /// Throws `ServerConfigurationError` for a limit out of range.
    func validate() throws(ServerConfigurationError) {
        for (name, value) in [("maxImageBytes", maxImageBytes), ("maxTextBytes", maxTextBytes)]
        where !(1...Self.largestMessageBytes).contains(value) {
            throw ServerConfigurationError(
                "\(name) must be from 1 to \(Self.largestMessageBytes) bytes (1 GiB), not \(value)")
        }
        guard maxImagePixels >= 1 else { throw ServerConfigurationError("maxImagePixels must be at least 1, not \(maxImagePixels)") }
        guard maxPendingRequests >= 1 else {
            throw ServerConfigurationError("maxPendingRequests must be at least 1, not \(maxPendingRequests)")
        }
        guard maxBodyDuration > .zero else {
            throw ServerConfigurationError("maxBodyDuration must be more than zero, not \(maxBodyDuration)")
        }
    }
}

/// A `ServerConfiguration` that cannot be served: a limit or setting out of range.
public struct ServerConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the setting.
    public let description: String

    init(_ description: String) { self.description = description }
}

/// The `.task` bundles the server runs, one per task; each is read from disk once, when the
/// server starts, and every session's task instance is made from those bytes.
public struct ServerModels: Sendable {
    /// `gesture_recognizer.task` (for `gesture`).
    public var gestureRecognizer: String
    /// `hand_landmarker.task` (for `hands`).
    public var handLandmarker: String
    /// `pose_landmarker_full.task` (for `pose`).
    public var poseLandmarker: String

    /// The bundles at these paths.
    public init(gestureRecognizer: String, handLandmarker: String, poseLandmarker: String) {
        self.gestureRecognizer = gestureRecognizer
        self.handLandmarker = handLandmarker
        self.poseLandmarker = poseLandmarker
    }

    /// The bundles of the model store (`ModelStore`, installed with `vision-tasks models install`).
    public init(store: ModelStore) {
        self.init(
            gestureRecognizer: store.path(for: .gestureRecognizerBundle).path,
            handLandmarker: store.path(for: .handLandmarkerBundle).path,
            poseLandmarker: store.path(for: .poseLandmarkerFullBundle).path)
    }
}
