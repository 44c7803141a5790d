/// Receives `PoseLandmarker` results in live-stream mode, as MediaPipe's
/// `PoseLandmarkerLiveStreamDelegate`.
///
/// Called on one private serial queue of the landmarker, once per processed frame, in
/// timestamp order; frames dropped because the previous one was still being processed or delivered get no
/// call (see `PoseLandmarker.droppedFrameCount`). Hop to your own queue or actor for UI work.
public protocol PoseLandmarkerLiveStreamDelegate: AnyObject, Sendable {
    /// One frame's outcome: a result (empty lists when no pose was found) or an error, and
    /// the timestamp the frame was sent with.
    func poseLandmarker(
        _ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
        timestampInMilliseconds: Int, error: (any Error)?)
}
