import Foundation

/// How `VideoReader(source:options:)` opens a live source: a camera (V4L2), a network stream
/// (RTSP, HTTP MJPEG, UDP MPEG-TS...) or anything else FFmpeg reads as it arrives.
public struct VideoSourceOptions: Sendable {
    /// FFmpeg's name of the input format or capture device (`v4l2`, `mjpeg`, `mpegts`,
    /// `rtsp`...), as `ffmpeg -f NAME`; nil lets FFmpeg guess from the URL and the data.
    public var formatName: String?
    /// Options of the format, device or protocol, as `ffmpeg`'s input options without the dash
    /// (`video_size=640x480`, `framerate=30`, `input_format=mjpeg`, `rtsp_transport=tcp`).
    public var formatOptions: [String: String]
    /// Seconds the source may take to open (connect and show its first picture), and then to
    /// deliver each next packet, before the read fails as unreachable or stalled; 0 waits
    /// without limit (`InterruptToken` still ends a wait).
    public var timeoutSeconds: Double
    /// Whether frames are turned upright by the stream's display rotation.
    public var appliesDisplayRotation: Bool
    /// Live semantics (the default): the stream's own presentation timestamps are used while
    /// they increase (never ones FFmpeg would invent from a guessed frame rate) and the arrival time
    /// otherwise (`VideoReader.timestampSource`), and frames that fail to decode (a UDP packet
    /// lost) are counted rather than fatal. False reads a file behind a URL as `init(path:)`
    /// reads a file.
    public var isLive: Bool
    /// Ends a blocked open or read from another thread (a signal handler, a stop button).
    public var interruptToken: InterruptToken?
    /// The most bytes one read may take from a source that FFmpeg reads through its I/O layer
    /// (HTTP, TCP, UDP, files; not RTSP or devices) before it fails (default 64 MiB; 0: no
    /// limit): one packet, such as an MJPEG part, with the container's overhead, and while
    /// opening, everything read to probe the stream. An MJPEG part whose `Content-Length` is
    /// huge, or which has none and never ends, was otherwise read whole into memory. 64 MiB is
    /// well above any camera's compressed frame (an 8K MJPEG frame at the highest quality is
    /// about 30 MB).
    public var maxPacketBytes = 64 << 20

    /// Options with FFmpeg's guesses, a 10 s timeout and live semantics.
    public init(
        formatName: String? = nil, formatOptions: [String: String] = [:], timeoutSeconds: Double = 10,
        appliesDisplayRotation: Bool = true, isLive: Bool = true, interruptToken: InterruptToken? = nil
    ) {
        self.formatName = formatName
        self.formatOptions = formatOptions
        self.timeoutSeconds = timeoutSeconds
        self.appliesDisplayRotation = appliesDisplayRotation
        self.isLive = isLive
        self.interruptToken = interruptToken
    }
}

/// A request to stop reading a live source, safe to make from any thread (a signal handler's
/// queue, a UI): a blocked `VideoReader` open or read returns promptly (FFmpeg's interrupt
/// callback), and the reader's `nextFrame()` then returns nil.
public final class InterruptToken: @unchecked Sendable {
    private let lock = NSLock()
    private var requested = false

    /// A token that has not been interrupted.
    public init() {}

    /// Asks every reader using this token to stop.
    public func interrupt() { lock.withLock { requested = true } }

    /// Whether `interrupt()` was called.
    public var isInterrupted: Bool { lock.withLock { requested } }
}

/// Where a live reader's frame timestamps come from.
public enum VideoTimestampSource: String, Sendable {
    /// The stream's own presentation timestamps (from its first frame's), while they increase.
    case presentation
    /// The time each frame arrived (was decoded), from the first frame's arrival: for streams
    /// that carry no timestamps (MJPEG over HTTP) or whose timestamps went back.
    case arrival
}
