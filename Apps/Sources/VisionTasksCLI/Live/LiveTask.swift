import Foundation
import VisionTasks

/// One live-stream result as the media driver receives it: the frame's timestamp and either a
/// function that makes the frame's output from the image it was sent with, or the task's error.
typealias LiveDelivery = @Sendable (_ timestampInMilliseconds: Int, _ output: Result<(MPImage) throws -> FrameOutput, TasksError>) -> Void

/// Makes the `LiveResultRelay` of a task command: results become functions from the frame's
/// image to its `FrameOutput`.
func liveRelay<Output: Sendable>(
    _ deliver: @escaping LiveDelivery, present: @escaping @Sendable (Output, MPImage) throws -> FrameOutput
) -> LiveResultRelay<Output> {
    LiveResultRelay<Output> { timestamp, result in
        deliver(timestamp, result.map { value in { image in try present(value, image) } })
    }
}

/// A task running in MediaPipe's live-stream mode (`recognizeAsync` / `detectAsync` with a
/// result delegate): frames are sent and return at once; a frame sent while the previous one
/// is still processed or delivered is dropped and counted by the task
/// (`VisionTaskRunner`); results arrive on the task's serial result queue.
struct LiveTaskHandle {
    /// Sends a frame (returns at once; the result or nothing, when dropped, comes later).
    var submit: (MPImage, Int) throws -> Void
    /// The task's `droppedFrameCount`.
    var droppedFrameCount: () -> Int
    /// The task's `waitUntilIdle()`: every accepted frame processed and delivered.
    var waitUntilIdle: () -> Void
    /// The task's delegate (tasks hold their delegate weakly, as MediaPipe's do).
    var delegate: AnyObject
}

/// How a task command runs its task in live-stream mode (see `TaskFrameProcessor.live`).
struct LiveHooks<Task> {
    /// Makes a live-stream task whose delegate hands each result to `deliver`; returns the
    /// task and its delegate.
    var make: (_ deliver: @escaping LiveDelivery) throws -> (task: Task, delegate: AnyObject)
    var submit: (Task, MPImage, Int) throws -> Void
    var droppedFrameCount: (Task) -> Int
    var waitUntilIdle: (Task) -> Void
}

/// The live-stream delegate of the task commands and `swipe`: hands each result (or error)
/// with its frame's timestamp to `handler`, on the task's result queue.
final class LiveResultRelay<Output: Sendable>: Sendable {
    private let handler: @Sendable (Int, Result<Output, TasksError>) -> Void

    init(handler: @escaping @Sendable (_ timestampInMilliseconds: Int, _ result: Result<Output, TasksError>) -> Void) {
        self.handler = handler
    }

    func relay(_ result: Output?, timestampInMilliseconds: Int, error: (any Error)?) {
        if let result {
            handler(timestampInMilliseconds, .success(result))
        } else {
            let failure = (error as? TasksError) ?? .internalError(error.map { String(describing: $0) } ?? "no result and no error")
            handler(timestampInMilliseconds, .failure(failure))
        }
    }
}
extension LiveResultRelay: GestureRecognizerLiveStreamDelegate where Output == GestureRecognizerResult {
    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, didFinishRecognition result: GestureRecognizerResult?,
        timestampInMilliseconds: Int, error: (any Error)?
    ) {
        relay(result, timestampInMilliseconds: timestampInMilliseconds, error: error)
    }
}

extension LiveResultRelay: HandLandmarkerLiveStreamDelegate where Output == HandLandmarkerResult {
    func handLandmarker(
        _ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
        timestampInMilliseconds: Int, error: (any Error)?
    ) {
        relay(result, timestampInMilliseconds: timestampInMilliseconds, error: error)
    }
}

extension LiveResultRelay: PoseLandmarkerLiveStreamDelegate where Output == PoseLandmarkerResult {
    func poseLandmarker(
        _ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
        timestampInMilliseconds: Int, error: (any Error)?
    ) {
        relay(result, timestampInMilliseconds: timestampInMilliseconds, error: error)
    }
}
