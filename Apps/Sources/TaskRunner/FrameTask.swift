import VisionTasks

/// A task the CLI and the server run on frames: the one place that turns a running mode into
/// the task's call (`recognize(image:)` or `recognize(videoFrame:timestampInMilliseconds:)`,
/// `detect(image:)` or `detect(videoFrame:timestampInMilliseconds:)`), typed by the task's
/// result. Live-stream mode is not a call on a frame (`recognizeAsync`, `detectAsync`), so
/// it is not run here.
public protocol FrameTask {
    /// What one frame gives: the task's result type.
    associatedtype FrameResult
    /// The key its records hold the result under (`gesture`, `hands`, `pose`).
    static var resultKey: String { get }
    /// Runs the task on `image`: in image mode as one image, in video mode as the frame at
    /// `timestampInMilliseconds` (which must increase from call to call). Errors are the task's.
    func run(_ image: MPImage, mode: RunningMode, timestampInMilliseconds: Int) throws -> FrameResult
}

extension GestureRecognizer: FrameTask {
    public static var resultKey: String { "gesture" }

    public func run(_ image: MPImage, mode: RunningMode, timestampInMilliseconds: Int) throws -> GestureRecognizerResult {
        mode == .image
            ? try recognize(image: image)
            : try recognize(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds)
    }
}

extension HandLandmarker: FrameTask {
    public static var resultKey: String { "hands" }

    public func run(_ image: MPImage, mode: RunningMode, timestampInMilliseconds: Int) throws -> HandLandmarkerResult {
        mode == .image
            ? try detect(image: image)
            : try detect(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds)
    }
}

extension PoseLandmarker: FrameTask {
    public static var resultKey: String { "pose" }

    public func run(_ image: MPImage, mode: RunningMode, timestampInMilliseconds: Int) throws -> PoseLandmarkerResult {
        mode == .image
            ? try detect(image: image)
            : try detect(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds)
    }
}
