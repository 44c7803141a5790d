/// How a `PoseDetector` treats successive images, as ML Kit's `PoseDetectorMode`.
public enum PoseDetectorMode: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// Frames of a video or camera stream (the default): the most prominent person is detected
    /// once and then tracked from frame to frame (MediaPipe's video mode, with its smoothing).
    case stream = 0
    /// Independent images: the person detector runs on every image (MediaPipe's image mode).
    case singleImage = 1

    /// The case's name.
    public var description: String { self == .stream ? "stream" : "singleImage" }
}
