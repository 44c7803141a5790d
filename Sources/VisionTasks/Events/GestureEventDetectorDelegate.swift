/// Receives the events of a `GestureEventDetector` (the tutorial's `HandSwiperDelegate`, with
/// swipes and the hand's identity added). Called synchronously from `process`, on the caller's
/// thread, once per event in the order they happen.
public protocol GestureEventDetectorDelegate: AnyObject {
    /// `event` happened.
    func gestureEventDetector(_ detector: GestureEventDetector, didDetect event: GestureEvent)
}
