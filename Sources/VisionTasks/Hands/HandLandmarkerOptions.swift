import Foundation

/// Options for `HandLandmarker`, as MediaPipe's `HandLandmarkerOptions` (`MPPHandLandmarkerOptions`).
///
/// ```swift
/// let options = HandLandmarkerOptions()
/// options.baseOptions.modelAssetPath = "hand_landmarker.task"
/// options.runningMode = .video
/// options.numHands = 2
/// let landmarker = try HandLandmarker(options: options)
/// ```
///
/// A class, like MediaPipe's, so that code written for it ports unchanged; the landmarker
/// takes a copy of the values when it is created. Safe to share between threads.
public final class HandLandmarkerOptions: @unchecked Sendable {
    private let lock = NSLock()
    private var _baseOptions = BaseOptions()
    private var _runningMode = RunningMode.image
    private var _numHands = 1
    private var _minHandDetectionConfidence: Float = 0.5
    private var _minHandPresenceConfidence: Float = 0.5
    private var _minTrackingConfidence: Float = 0.5
    private weak var _delegate: (any HandLandmarkerLiveStreamDelegate)?

    /// The model: a `.task` bundle holding `hand_detector.tflite` and
    /// `hand_landmarks_detector.tflite` (Google's `hand_landmarker.task`, or the one
    /// `vision-tasks models install` assembles).
    public var baseOptions: BaseOptions {
        get { lock.withLock { _baseOptions } }
        set { lock.withLock { _baseOptions = newValue } }
    }

    /// How the landmarker is fed: `.image` (default), `.video` or `.liveStream`.
    public var runningMode: RunningMode {
        get { lock.withLock { _runningMode } }
        set { lock.withLock { _runningMode = newValue } }
    }

    /// The most hands to find (default 1, must be at least 1).
    public var numHands: Int {
        get { lock.withLock { _numHands } }
        set { lock.withLock { _numHands = newValue } }
    }

    /// The palm detector's score threshold, 0...1 (default 0.5).
    public var minHandDetectionConfidence: Float {
        get { lock.withLock { _minHandDetectionConfidence } }
        set { lock.withLock { _minHandDetectionConfidence = newValue } }
    }

    /// The landmark model's hand presence threshold, 0...1 (default 0.5): regions whose
    /// presence score is not above it yield no hand (and, in video, stop being tracked).
    public var minHandPresenceConfidence: Float {
        get { lock.withLock { _minHandPresenceConfidence } }
        set { lock.withLock { _minHandPresenceConfidence = newValue } }
    }

    /// In video and live-stream mode, the overlap (intersection over union) above which a new
    /// palm detection is taken for a hand already tracked from the previous frame, 0...1
    /// (default 0.5).
    public var minTrackingConfidence: Float {
        get { lock.withLock { _minTrackingConfidence } }
        set { lock.withLock { _minTrackingConfidence = newValue } }
    }

    /// Receives the results in `.liveStream` mode (required there, refused in the other
    /// modes). Held weakly, as in MediaPipe.
    public var handLandmarkerLiveStreamDelegate: (any HandLandmarkerLiveStreamDelegate)? {
        get { lock.withLock { _delegate } }
        set { lock.withLock { _delegate = newValue } }
    }

    public init() {}

    /// An independent copy (MediaPipe's options are `NSCopying`); the base options are copied
    /// too, the delegate is shared.
    public func copy() -> HandLandmarkerOptions {
        let copy = HandLandmarkerOptions()
        lock.withLock {
            copy._baseOptions = _baseOptions.copy()
            copy._runningMode = _runningMode
            copy._numHands = _numHands
            copy._minHandDetectionConfidence = _minHandDetectionConfidence
            copy._minHandPresenceConfidence = _minHandPresenceConfidence
            copy._minTrackingConfidence = _minTrackingConfidence
            copy._delegate = _delegate
        }
        return copy
    }

    /// The validated graph settings (`numHands` ≥ 1, every confidence in 0...1).
    func graphConfiguration() throws -> HandLandmarkerGraph.Configuration {
        let (numHands, detection, presence, tracking, base) = lock.withLock {
            (_numHands, _minHandDetectionConfidence, _minHandPresenceConfidence, _minTrackingConfidence, _baseOptions)
        }
        return try HandLandmarkerGraph.Configuration.validated(
            numHands: numHands, minHandDetectionConfidence: detection,
            minHandPresenceConfidence: presence, minTrackingConfidence: tracking,
            threadCount: try base.threadCount())
    }
}

extension HandLandmarkerGraph.Configuration {
    /// The settings after MediaPipe's checks, with the Swift option names in the messages.
    static func validated(
        numHands: Int, minHandDetectionConfidence: Float, minHandPresenceConfidence: Float,
        minTrackingConfidence: Float, threadCount: Int
    ) throws -> Self {
        guard numHands >= 1 else {
            throw TasksError.invalidArgument("Invalid `numHands` option: \(numHands); it must be at least 1.")
        }
        for (name, value) in [
            ("minHandDetectionConfidence", minHandDetectionConfidence),
            ("minHandPresenceConfidence", minHandPresenceConfidence),
            ("minTrackingConfidence", minTrackingConfidence),
        ] where !(value >= 0 && value <= 1) {
            throw TasksError.invalidArgument(
                "Invalid `\(name)` option: \(value); value must be in the range [0.0, 1.0].")
        }
        return Self(
            numHands: numHands, minHandDetectionConfidence: minHandDetectionConfidence,
            minHandPresenceConfidence: minHandPresenceConfidence,
            minTrackingConfidence: minTrackingConfidence, threadCount: max(1, threadCount))
    }
}
