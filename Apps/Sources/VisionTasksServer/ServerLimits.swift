#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// The largest workout message on a live session (ML Kit's samples CSV in a text message),
    /// in bytes (default 2 MiB: about 2,500 samples). A session reads no message longer than
    /// `maxImageBytes` (or `maxTextBytes`): one that is closes the session with 1009, whatever
    /// this limit.
    public var maxSamplesBytes = 2 << 20
    /// The most HTTP task requests in progress at once, from the first byte of their body to
    /// the answer (default 16): one more is answered 503 `serverBusy` at once, before its body
    /// is read. Each holds up to `maxImageBytes` twice while it waits for a core, so this
    /// bounds the memory that many clients posting at once can take.
    public var maxPendingRequests = 16
    /// The longest a request's body may take to arrive, from the end of its headers (default
    /// 30 s): a slower client is answered 408 `requestTimeout` and its connection closed, so a
    /// client that trickles its body cannot hold one of the `maxPendingRequests` places for ever.
    public var maxBodyDuration: Duration = .seconds(30)

    /// Teaching gestures on a live session (`{"teach": ...}` messages): the most labels one
    /// session may record, `none` included (default 8).
    public var maxTeachLabels = 8
    /// The most samples (frames with a hand) one label may hold on a session (default 300:
    /// 20 s of camera at 15 frames a second). Recording stops when a label is full.
    public var maxTeachSamplesPerLabel = 300
    /// The most trained gesture classifiers a session keeps, each under its name, to switch
    /// between (default 4). Training one more under a new name when this many are kept is an
    /// error; training under a kept name replaces it.
    public var maxTaughtModels = 4
    /// The most bytes of trained classifiers (their `custom_gesture_classifier.tflite`) a
    /// session keeps, all together (default 1 MiB; one classifier of Model Maker's default
    /// shape takes under 10 KiB). The bundle a session runs is assembled from the classifier
    /// and the server's gesture recognizer bundle when it is switched to.
    public var maxTaughtModelBytes = 1 << 20
    /// The largest gesture recognizer bundle a live session may upload to run its custom
    /// classifier (default 12 MiB; MediaPipe's `gesture_recognizer.task` takes 8.5 MB). It comes
    /// in binary messages of up to `maxImageBytes` each and is held until whole; only its
    /// `custom_gesture_classifier.tflite` is kept (within `maxTaughtModelBytes`), the rest is
    /// the server's own models.
    public var maxUploadedBundleBytes = 12 << 20

    /// The most TCP connections open at once (default: 512, or fewer when the process may open
    /// fewer files: `ulimit -n` less `reservedDescriptors`). A connection over it closes the
    /// connection idle longest (one that has not sent a whole request head yet, or waits
    /// between requests) to make room; when all are busy it is answered 503
    /// `tooManyConnections`. Keeps the server below its file-descriptor limit, where accepting
    /// fails and nothing is answered, not even `/healthz`.
    public var maxConnections = ServerLimits.defaultMaxConnections

    /// File descriptors kept for the server's own use beside its connections (event loops,
    /// the listening socket, the page's files): 64.
    public static let reservedDescriptors = 64

    /// 512, or the process's file-descriptor limit less `reservedDescriptors` when that is
    /// lower (at least 1).
    public static var defaultMaxConnections: Int {
        max(1, min(512, descriptorLimit - reservedDescriptors))
    }

    /// The process's file-descriptor limit (`ulimit -n`, the soft limit; `Int.max` when unlimited).
    static var descriptorLimit: Int {
        var limit = rlimit()
        guard getrlimit(descriptorResource, &limit) == 0, limit.rlim_cur != rlim_t.max else { return Int.max }
        return Int(clamping: limit.rlim_cur)
    }

    #if os(Linux)
    private static let descriptorResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let descriptorResource = RLIMIT_NOFILE
    #endif

    /// Raises the process's soft file-descriptor limit to its hard limit (what `ulimit -n`
    /// may be raised to without privileges), as servers do at start; `vision-tasks serve`
    /// calls it before `defaultMaxConnections` is read.
    public static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(descriptorResource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(descriptorResource, &limit)
    }

    /// The most headers a request may have (more: 431).
    public static let maxHeaderCount = 100
    /// The most bytes of headers a request may have (more: 431).
    public static let maxHeaderBytes = 32 << 10

    /// The largest WebSocket message a live session reads: a frame (its image and timestamp) or
    /// a text message, whichever may be longer. Longer ones close the session with 1009.
    var largestLiveMessageBytes: Int { max(maxImageBytes + LiveFrame.headerSize, maxTextBytes) }

    /// The largest `maxImageBytes`, `maxTextBytes`, `maxSamplesBytes` and `maxUploadedBundleBytes`: 1 GiB (a WebSocket message must stay
    /// below 4 GiB, and a request body is held in memory).
    public static let largestMessageBytes = 1 << 30

    /// The default limits.
    public init() {}

    /// Throws `ServerConfigurationError` for a limit out of range.
    func validate() throws(ServerConfigurationError) {
        for (name, value) in [("maxImageBytes", maxImageBytes), ("maxTextBytes", maxTextBytes), ("maxSamplesBytes", maxSamplesBytes),
            ("maxUploadedBundleBytes", maxUploadedBundleBytes),
        ]
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
        for (name, value) in [
            ("maxTeachLabels", maxTeachLabels), ("maxTeachSamplesPerLabel", maxTeachSamplesPerLabel),
            ("maxTaughtModels", maxTaughtModels), ("maxTaughtModelBytes", maxTaughtModelBytes),
        ] where value < (name == "maxTeachLabels" ? 2 : 1) {
            throw ServerConfigurationError("\(name) must be at least \(name == "maxTeachLabels" ? 2 : 1), not \(value)")
        }
        let descriptors = Self.descriptorLimit
        guard maxConnections >= 1, maxConnections <= descriptors - Self.reservedDescriptors else {
            throw ServerConfigurationError(
                maxConnections < 1
                    ? "maxConnections must be at least 1, not \(maxConnections)"
                    : "maxConnections \(maxConnections) needs \(maxConnections + Self.reservedDescriptors) file descriptors; this process may open \(descriptors) (ulimit -n)")
        }
    }
}
