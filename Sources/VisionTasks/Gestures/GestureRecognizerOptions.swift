import Foundation

/// Options for `GestureRecognizer`, as MediaPipe's `GestureRecognizerOptions`
/// (`MPPGestureRecognizerOptions`).
///
/// ```swift
/// let options = GestureRecognizerOptions()
/// options.baseOptions.modelAssetPath = "gesture_recognizer.task"
/// options.runningMode = .video
/// options.numHands = 2
/// let canned = ClassifierOptions()
/// canned.categoryDenylist = ["None"]
/// options.cannedGesturesClassifierOptions = canned
/// let recognizer = try GestureRecognizer(options: options)
/// ```
///
/// A class, like MediaPipe's, so that code written for it ports unchanged; the recognizer
/// takes a copy of the values when it is created. Safe to share between threads.
public final class GestureRecognizerOptions: @unchecked Sendable {
    private let lock = NSLock()
    private var _baseOptions = BaseOptions()
    private var _runningMode = RunningMode.image
    private var _hands = HandLandmarkerGraph.Configuration()
    private var _canned: ClassifierOptions?
    private var _custom: ClassifierOptions?
    private weak var _delegate: (any GestureRecognizerLiveStreamDelegate)?

    /// The model: a `.task` bundle holding a hand landmarker bundle (`hand_landmarker.task`)
    /// and a gesture bundle (`hand_gesture_recognizer.task` with `gesture_embedder.tflite`,
    /// `canned_gesture_classifier.tflite` and optionally `custom_gesture_classifier.tflite`),
    /// such as Google's `gesture_recognizer.task` or a Model Maker export.
    public var baseOptions: BaseOptions {
        get { lock.withLock { _baseOptions } }
        set { lock.withLock { _baseOptions = newValue } }
    }

    /// How the recognizer is fed: `.image` (default), `.video` or `.liveStream`.
    public var runningMode: RunningMode {
        get { lock.withLock { _runningMode } }
        set { lock.withLock { _runningMode = newValue } }
    }

    /// The most hands to find (default 1, must be at least 1).
    public var numHands: Int {
        get { lock.withLock { _hands.numHands } }
        set { lock.withLock { _hands.numHands = newValue } }
    }

    /// The palm detector's score threshold, 0...1 (default 0.5).
    public var minHandDetectionConfidence: Float {
        get { lock.withLock { _hands.minHandDetectionConfidence } }
        set { lock.withLock { _hands.minHandDetectionConfidence = newValue } }
    }

    /// The landmark model's hand presence threshold, 0...1 (default 0.5).
    public var minHandPresenceConfidence: Float {
        get { lock.withLock { _hands.minHandPresenceConfidence } }
        set { lock.withLock { _hands.minHandPresenceConfidence = newValue } }
    }

    /// In video and live-stream mode, the overlap (intersection over union) above which a new
    /// palm detection is taken for a hand already tracked, 0...1 (default 0.5).
    public var minTrackingConfidence: Float {
        get { lock.withLock { _hands.minTrackingConfidence } }
        set { lock.withLock { _hands.minTrackingConfidence = newValue } }
    }

    /// VisionTasks' addition: smooths the reported landmarks over time in video and
    /// live-stream mode (see `HandLandmarkSmoothing`). Default nil: off, results equal to
    /// MediaPipe's.
    public var landmarkSmoothing: HandLandmarkSmoothing? {
        get { lock.withLock { _hands.landmarkSmoothing } }
        set { lock.withLock { _hands.landmarkSmoothing = newValue } }
    }

    /// VisionTasks' addition: whether the input frames are mirror images (a selfie camera or
    /// preview that flips its frames, a mirrored screen capture). Default false: handedness
    /// is the model's, as in MediaPipe. Measured on unmirrored photos, MediaPipe's model
    /// reports the hand's real side (on 8 of the 9 shared photos whose side is named and where
    /// a hand is found: docs/apple-vision.md, "Chirality: the evidence"), so for
    /// mirrored frames, where a right hand looks like a left one, `true` flips "Left" and
    /// "Right" to report the real side again. Landmarks stay in the frame's coordinates.
    public var inputIsMirrored: Bool {
        get { lock.withLock { _hands.inputIsMirrored } }
        set { lock.withLock { _hands.inputIsMirrored = newValue } }
    }

    /// How the canned classifier's scores become gestures (nil, the default: MediaPipe's
    /// defaults, every class, the threshold from the model's metadata if any).
    public var cannedGesturesClassifierOptions: ClassifierOptions? {
        get { lock.withLock { _canned } }
        set { lock.withLock { _canned = newValue?.copy() } }
    }

    /// How the custom classifier's scores become gestures, for bundles with a custom
    /// classifier (nil, the default: MediaPipe's defaults, i.e. the model's own threshold).
    public var customGesturesClassifierOptions: ClassifierOptions? {
        get { lock.withLock { _custom } }
        set { lock.withLock { _custom = newValue?.copy() } }
    }

    /// Receives the results in `.liveStream` mode (required there, refused in the other
    /// modes). Held weakly, as in MediaPipe.
    public var gestureRecognizerLiveStreamDelegate: (any GestureRecognizerLiveStreamDelegate)? {
        get { lock.withLock { _delegate } }
        set { lock.withLock { _delegate = newValue } }
    }

    /// Options with MediaPipe's defaults (image mode; no model yet: set `baseOptions`).
    public init() {}

    /// An independent copy (MediaPipe's options are `NSCopying`); base and classifier options
    /// are copied too, the delegate is shared.
    public func copy() -> GestureRecognizerOptions {
        let copy = GestureRecognizerOptions()
        lock.withLock {
            copy._baseOptions = _baseOptions.copy()
            copy._runningMode = _runningMode
            copy._hands = _hands
            copy._canned = _canned?.copy()
            copy._custom = _custom?.copy()
            copy._delegate = _delegate
        }
        return copy
    }

    /// The hand settings, after MediaPipe's checks (`numHands` ≥ 1, every confidence in 0...1).
    func validatedHandSettings() throws -> HandLandmarkerGraph.Configuration {
        let hands = lock.withLock { _hands }
        try hands.validate()
        return hands
    }
}
