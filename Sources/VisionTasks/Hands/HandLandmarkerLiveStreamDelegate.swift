/// Receives `HandLandmarker` results in live-stream mode, as MediaPipe's
/// `HandLandmarkerLiveStreamDelegate`.
///
/// Called on one private serial queue of the landmarker, once per processed frame, in
/// timestamp order; frames dropped because the previous one was still being processed or delivered get no
/// call (see `HandLandmarker.droppedFrameCount`). Hop to your own queue or actor for UI work.
public protocol HandLandmarkerLiveStreamDelegate: AnyObject, Sendable {
    /// One frame's outcome: a result (empty lists when no hand was found) or an error, and the
    /// timestamp the frame was sent with.
    func handLandmarker(
        _ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
        timestampInMilliseconds: Int, error: (any Error)?)
}
