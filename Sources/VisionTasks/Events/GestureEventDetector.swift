import Foundation

/// Turns per-frame hand results into discrete touchless-control events (a VisionTasks
/// addition; MediaPipe leaves this to app code): `thumbsUp`, `thumbsDown`, `swipeLeft`,
/// `swipeRight`, per hand, each once per gesture.
///
/// <!-- snippet-prelude: let recognizer = try GestureRecognizer(options: GestureRecognizerOptions())
/// let frame = try MPImage(pixels: [UInt8](repeating: 0, count: 640 * 480 * 3), width: 640, height: 480, format: .rgb8)
/// let t = 0 -->
/// ```swift
/// let detector = try GestureEventDetector()     // events also reach detector.delegate and detector.events()
/// let result = try recognizer.recognize(videoFrame: frame, timestampInMilliseconds: t)
/// for event in detector.process(result, imageWidth: frame.width, imageHeight: frame.height) {
///     print(event.kind, event.handIdentifier, event.handedness)
/// }
/// ```
///
/// Feed it the results of one stream in timestamp order: `GestureRecognizerResult`s (thumbs
/// from the recognizer's "Thumb_Up" / "Thumb_Down") or `HandLandmarkerResult`s (thumbs from
/// the landmark rule). Hands are told apart by the results' `handIdentifiers`, so use video or
/// live-stream mode; a result without identifiers (image mode) is read by hand index. A hand
/// that is missing from a frame is forgotten. The rules are `GestureEventOptions`. A result
/// whose timestamp is before the previous one starts a new stream (as `reset()`); any `Int`
/// timestamp is accepted, since results may be built or decoded by the caller.
///
/// Events reach the return value of `process`, the `delegate` and every `events()` sequence.
/// Safe to call from any thread; calls are processed one at a time.
public final class GestureEventDetector: @unchecked Sendable {
    /// The rules it was created with.
    public let options: GestureEventOptions

    /// Receives every event, synchronously from `process`. Held weakly.
    public weak var delegate: (any GestureEventDetectorDelegate)? {
        get { lock.withLock { _delegate } }
        set { lock.withLock { _delegate = newValue } }
    }

    private let lock = NSLock()
    private weak var _delegate: (any GestureEventDetectorDelegate)?
    private var trackers: [Int: HandEventTracker] = [:]
    private var lastTimestamp: Int?
    private var continuations: [UUID: AsyncStream<GestureEvent>.Continuation] = [:]
    private var finished = false

    /// A detector with `options` (default: the documented defaults). Throws
    /// `TasksError.invalidArgument` for values no rule can use.
    public init(options: GestureEventOptions = GestureEventOptions()) throws {
        try options.validate()
        self.options = options
    }

    /// Reads one frame's gesture recognizer result (pixel size of the frame it came from, for
    /// the hand-size rules) and returns the events it completes.
    @discardableResult
    public func process(_ result: GestureRecognizerResult, imageWidth: Int, imageHeight: Int) -> [GestureEvent] {
        // When classifier options drop a hand's gestures the lists no longer line up: no
        // recognizer gestures for that frame.
        let aligned = result.gestures.count == result.landmarks.count
        let thumbs: [GestureEvent.Kind?] = result.landmarks.indices.map { index in
            guard options.thumbSource == .recognizer else { return nil }
            guard aligned, let top = result.gestures[index].first, top.score >= options.minGestureScore else {
                return nil
            }
            switch top.categoryName {
            case "Thumb_Up": return .thumbsUp
            case "Thumb_Down": return .thumbsDown
            default: return nil
            }
        }
        return run(
            landmarks: result.landmarks, handedness: result.handedness, identifiers: result.handIdentifiers,
            recognizedThumbs: options.thumbSource == .recognizer ? thumbs : nil,
            timestamp: result.timestampInMilliseconds, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// Reads one frame's hand landmarker result (thumbs from the landmark rule) and returns
    /// the events it completes.
    @discardableResult
    public func process(_ result: HandLandmarkerResult, imageWidth: Int, imageHeight: Int) -> [GestureEvent] {
        run(
            landmarks: result.landmarks, handedness: result.handedness, identifiers: result.handIdentifiers,
            recognizedThumbs: nil, timestamp: result.timestampInMilliseconds, imageWidth: imageWidth,
            imageHeight: imageHeight)
    }

    /// The events from now on, as an async sequence (besides the delegate). It ends after
    /// `finish()`. When the consumer falls behind, events beyond the newest `bufferingNewest`
    /// are discarded.
    public func events(bufferingNewest limit: Int = 64) -> AsyncStream<GestureEvent> {
        let (stream, continuation) = AsyncStream<GestureEvent>.makeStream(
            bufferingPolicy: .bufferingNewest(max(1, limit)))
        let id = UUID()
        let alreadyFinished = lock.withLock {
            if !finished { continuations[id] = continuation }
            return finished
        }
        if alreadyFinished {
            continuation.finish()
        } else {
            continuation.onTermination = { [weak self] _ in
                _ = self?.lock.withLock { self?.continuations.removeValue(forKey: id) }
            }
        }
        return stream
    }

    /// Ends every `events()` sequence (at the end of a stream); `process` still returns events.
    public func finish() {
        let ending = lock.withLock {
            finished = true
            defer { continuations = [:] }
            return Array(continuations.values)
        }
        for continuation in ending { continuation.finish() }
    }

    /// Forgets every hand (for a new stream).
    public func reset() {
        lock.withLock {
            trackers = [:]
            lastTimestamp = nil
        }
    }

    private func run(
        landmarks: [[NormalizedLandmark]], handedness: [[ResultCategory]], identifiers: [Int],
        recognizedThumbs: [GestureEvent.Kind?]?, timestamp: Int, imageWidth: Int, imageHeight: Int
    ) -> [GestureEvent] {
        let ids = identifiers.count == landmarks.count ? identifiers : Array(landmarks.indices)
        let (events, delegate, continuations) = lock.withLock {
            // Time going backwards is a new stream: the rules' time differences are only
            // meaningful forwards.
            if let last = lastTimestamp, timestamp < last { trackers = [:] }
            lastTimestamp = timestamp
            var next: [Int: HandEventTracker] = [:]
            var events: [GestureEvent] = []
            for (index, hand) in landmarks.enumerated() {
                let id = ids[index]
                var tracker = trackers[id] ?? HandEventTracker()
                if let shape = HandShape(landmarks: hand, imageWidth: imageWidth, imageHeight: imageHeight) {
                    let thumb =
                        recognizedThumbs.map { $0[index] }
                        ?? shape.thumbGesture(height: options.thumbRuleHeight, margin: options.thumbRuleMargin)
                    if let kind = tracker.update(thumb: thumb, shape: shape, time: timestamp, options: options) {
                        let side = index < handedness.count ? handedness[index].first?.categoryName : nil
                        events.append(
                            GestureEvent(
                                kind: kind, handIdentifier: id, handedness: side ?? "",
                                timestampInMilliseconds: timestamp))
                    }
                }
                next[id] = tracker
            }
            trackers = next
            return (events, _delegate, Array(self.continuations.values))
        }
        for event in events {
            delegate?.gestureEventDetector(self, didDetect: event)
            for continuation in continuations { continuation.yield(event) }
        }
        return events
    }
}
