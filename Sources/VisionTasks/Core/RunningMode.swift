/// How a task is fed, as in MediaPipe Tasks: the mode fixes which method may be called.
///
/// - `image`: independent images, `detect(image:)` / `recognize(image:)`.
/// - `video`: decoded frames of one video with increasing timestamps,
///   `detect(videoFrame:timestampInMilliseconds:)`; regions are tracked from frame to frame.
/// - `liveStream`: frames from a camera, `detectAsync(image:timestampInMilliseconds:)`;
///   results reach the live-stream delegate; frames that arrive while one is in work are dropped.
public enum RunningMode: Int, Sendable, CaseIterable, CustomStringConvertible {
    case image
    case video
    case liveStream

    public var description: String {
        switch self {
        case .image: return "image"
        case .video: return "video"
        case .liveStream: return "liveStream"
        }
    }
}
