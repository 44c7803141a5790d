/// Receives `GestureRecognizer` results in live-stream mode, as MediaPipe's
/// `GestureRecognizerLiveStreamDelegate`.
///
/// Implement either method (both are optional, as in MediaPipe): the recognizer calls
/// `gestureRecognizer(_:didFinishRecognition:timestampInMilliseconds:error:)`, whose default
/// implementation forwards to `gestureRecognizer(_:didFinishGestureRecognition:…)`, the name
/// MediaPipe's iOS API uses.
///
/// Called on one private serial queue of the recognizer, once per processed frame, in
/// timestamp order; frames dropped because the previous one was still being processed or delivered get no
/// call (see `GestureRecognizer.droppedFrameCount`). Hop to your own queue or actor for UI
/// work.
public protocol GestureRecognizerLiveStreamDelegate: AnyObject, Sendable {
    /// One frame's outcome: a result (empty lists when no hand was found) or an error, and the
    /// timestamp the frame was sent with.
    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, didFinishRecognition result: GestureRecognizerResult?,
        timestampInMilliseconds: Int, error: (any Error)?)

    /// The same call under MediaPipe iOS's name.
    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, didFinishGestureRecognition result: GestureRecognizerResult?,
        timestampInMilliseconds: Int, error: (any Error)?)
}

extension GestureRecognizerLiveStreamDelegate {
    public func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, didFinishRecognition result: GestureRecognizerResult?,
        timestampInMilliseconds: Int, error: (any Error)?
    ) {
        self.gestureRecognizer(
            gestureRecognizer, didFinishGestureRecognition: result,
            timestampInMilliseconds: timestampInMilliseconds, error: error)
    }

    public func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, didFinishGestureRecognition result: GestureRecognizerResult?,
        timestampInMilliseconds: Int, error: (any Error)?
    ) {}
}
