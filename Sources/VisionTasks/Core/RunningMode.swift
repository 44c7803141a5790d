/// How a task is fed, as in MediaPipe Tasks: the mode fixes which method may be called.
///
/// - `image`: independent images, `detect(image:)` / `recognize(image:)`.
/// - `video`: decoded frames of one video with increasing timestamps,
///   `detect(videoFrame:timestampInMilliseconds:)`; regions are tracked from frame to frame.
/// - `liveStream`: frames from a camera, `detectAsync(image:timestampInMilliseconds:)`;
///   results reach the live-stream delegate; frames that arrive while one is in work are dropped.
public enum RunningMode: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// Independent images: `detect(image:)`, `recognize(image:)`.
    case image
    /// The frames of one video, with increasing timestamps: `detect(videoFrame:timestampInMilliseconds:)`.
    case video
    /// Camera frames, results delivered to a delegate: `detectAsync(image:timestampInMilliseconds:)`.
    case liveStream

    public var description: String {
        switch self {
        case .image: return "image"
        case .video: return "video"
        case .liveStream: return "liveStream"
        }
    }
}

extension RunningMode {
    /// MediaPipe's delegate rule: live stream needs a result delegate, image and video must
    /// not have one (messages as MediaPipe's `MPPVisionTaskRunner`).
    package func checkLiveStreamDelegate(isSet: Bool) throws {
        switch self {
        case .image, .video:
            if isSet {
                throw TasksError.invalidArgument(
                    "The vision task is in image or video mode. The delegate must not be set in the task's options.")
            }
        case .liveStream:
            if !isSet {
                throw TasksError.invalidArgument(
                    "The vision task is in live stream mode. An object must be set as the delegate of the task in its options to ensure asynchronous delivery of results.")
            }
        }
    }

    /// MediaPipe's `MPPRunningModeDisplayName`, for error messages.
    package var displayName: String {
        switch self {
        case .image: return "Image"
        case .video: return "Video"
        case .liveStream: return "Live Stream"
        }
    }
}
