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
    private let state = Locked(TaskOptionValues(HandLandmarkerGraph.Configuration()))

    /// The model: a `.task` bundle holding `hand_detector.tflite` and
    /// `hand_landmarks_detector.tflite` (Google's `hand_landmarker.task`, or the one
    /// `vision-tasks models install` assembles).
    public var baseOptions: BaseOptions {
        get { state[\.baseOptions] }
        set { state[\.baseOptions] = newValue }
    }

    /// How the landmarker is fed: `.image` (default), `.video` or `.liveStream`.
    public var runningMode: RunningMode {
        get { state[\.runningMode] }
        set { state[\.runningMode] = newValue }
    }

    /// The most hands to find (default 1, must be at least 1).
    public var numHands: Int {
        get { state[\.settings.numHands] }
        set { state[\.settings.numHands] = newValue }
    }

    /// The palm detector's score threshold, 0...1 (default 0.5).
    public var minHandDetectionConfidence: Float {
        get { state[\.settings.minHandDetectionConfidence] }
        set { state[\.settings.minHandDetectionConfidence] = newValue }
    }

    /// The landmark model's hand presence threshold, 0...1 (default 0.5): regions whose
    /// presence score is not above it yield no hand (and, in video, stop being tracked).
    public var minHandPresenceConfidence: Float {
        get { state[\.settings.minHandPresenceConfidence] }
        set { state[\.settings.minHandPresenceConfidence] = newValue }
    }

    /// In video and live-stream mode, the overlap (intersection over union) above which a new
    /// palm detection is taken for a hand already tracked from the previous frame, 0...1
    /// (default 0.5).
    public var minTrackingConfidence: Float {
        get { state[\.settings.minTrackingConfidence] }
        set { state[\.settings.minTrackingConfidence] = newValue }
    }

    /// VisionTasks' addition: smooths the reported landmarks over time in video and
    /// live-stream mode (see `HandLandmarkSmoothing`). Default nil: off, results equal to
    /// MediaPipe's.
    public var landmarkSmoothing: HandLandmarkSmoothing? {
        get { state[\.settings.landmarkSmoothing] }
        set { state[\.settings.landmarkSmoothing] = newValue }
    }

    /// VisionTasks' addition: whether the input frames are mirror images (a selfie camera or
    /// preview that flips its frames, a mirrored screen capture). Default false: handedness
    /// is the model's, as in MediaPipe. Measured on unmirrored photos, MediaPipe's model
    /// reports the hand's real side (on 8 of the 9 shared photos whose side is named and where
    /// a hand is found: docs/apple-vision.md, "Chirality: the evidence"), so for
    /// mirrored frames, where a right hand looks like a left one, `true` flips "Left" and
    /// "Right" to report the real side again. Landmarks stay in the frame's coordinates.
    public var inputIsMirrored: Bool {
        get { state[\.settings.inputIsMirrored] }
        set { state[\.settings.inputIsMirrored] = newValue }
    }

    /// Receives the results in `.liveStream` mode (required there, refused in the other
    /// modes). Held weakly, as in MediaPipe.
    public var handLandmarkerLiveStreamDelegate: (any HandLandmarkerLiveStreamDelegate)? {
        get { state[\.delegate] as? any HandLandmarkerLiveStreamDelegate }
        set { state[\.delegate] = newValue }
    }

    /// Options with MediaPipe's defaults (image mode; no model yet: set `baseOptions`).
    public init() {}

    /// An independent copy (MediaPipe's options are `NSCopying`); the base options are copied
    /// too, the delegate is shared.
    public func copy() -> HandLandmarkerOptions {
        let copy = HandLandmarkerOptions()
        copy.state.value = state.value.copied()
        return copy
    }

    /// The hand settings, after MediaPipe's checks (`numHands` ≥ 1, every confidence in 0...1).
    func validatedHandSettings() throws -> HandLandmarkerGraph.Configuration {
        let hands = state[\.settings]
        try hands.validate()
        return hands
    }
}
