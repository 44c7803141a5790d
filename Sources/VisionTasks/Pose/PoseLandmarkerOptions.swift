import Foundation

/// Options for `PoseLandmarker`, as MediaPipe's `PoseLandmarkerOptions` (`MPPPoseLandmarkerOptions`).
///
/// ```swift
/// let options = PoseLandmarkerOptions()
/// options.baseOptions.modelAssetPath = "pose_landmarker_full.task"
/// options.runningMode = .video
/// options.numPoses = 1
/// let landmarker = try PoseLandmarker(options: options)
/// ```
///
/// A class, like MediaPipe's, so that code written for it ports unchanged; the landmarker
/// takes a copy of the values when it is created. Safe to share between threads.
public final class PoseLandmarkerOptions: @unchecked Sendable {
    private let state = Locked(TaskOptionValues(PoseLandmarkerGraph.Configuration()))

    /// The model (a `.task` bundle holding `pose_detector.tflite` and
    /// `pose_landmarks_detector.tflite`, such as Google's `pose_landmarker_lite.task`,
    /// `pose_landmarker_full.task` or `pose_landmarker_heavy.task`).
    public var baseOptions: BaseOptions {
        get { state[\.baseOptions] }
        set { state[\.baseOptions] = newValue }
    }

    /// How the landmarker is fed: `.image` (default), `.video` or `.liveStream`.
    public var runningMode: RunningMode {
        get { state[\.runningMode] }
        set { state[\.runningMode] = newValue }
    }

    /// The most poses to find (default 1, must be at least 1). With 1 pose in video and live
    /// stream mode the landmarks are smoothed over time, as in MediaPipe.
    public var numPoses: Int {
        get { state[\.settings.numPoses] }
        set { state[\.settings.numPoses] = newValue }
    }

    /// The pose detector's score threshold, 0...1 (default 0.5).
    public var minPoseDetectionConfidence: Float {
        get { state[\.settings.minPoseDetectionConfidence] }
        set { state[\.settings.minPoseDetectionConfidence] = newValue }
    }

    /// The landmark model's pose presence threshold, 0...1 (default 0.5): regions whose
    /// presence score is not above it yield no pose.
    public var minPosePresenceConfidence: Float {
        get { state[\.settings.minPosePresenceConfidence] }
        set { state[\.settings.minPosePresenceConfidence] = newValue }
    }

    /// In video and live stream mode, the overlap (intersection over union) above which a new
    /// detection replaces a pose tracked from the previous frame, 0...1 (default 0.5).
    public var minTrackingConfidence: Float {
        get { state[\.settings.minTrackingConfidence] }
        set { state[\.settings.minTrackingConfidence] = newValue }
    }

    /// Whether results carry a segmentation mask per pose (default false).
    public var outputSegmentationMasks: Bool {
        get { state[\.settings.outputSegmentationMasks] }
        set { state[\.settings.outputSegmentationMasks] = newValue }
    }

    /// The iOS API's name for `outputSegmentationMasks`.
    public var shouldOutputSegmentationMasks: Bool {
        get { outputSegmentationMasks }
        set { outputSegmentationMasks = newValue }
    }

    /// Receives the results in `.liveStream` mode (required there, refused in the other
    /// modes). Held weakly, as in MediaPipe.
    public var poseLandmarkerLiveStreamDelegate: (any PoseLandmarkerLiveStreamDelegate)? {
        get { state[\.delegate] as? any PoseLandmarkerLiveStreamDelegate }
        set { state[\.delegate] = newValue }
    }

    /// Options with MediaPipe's defaults (image mode; no model yet: set `baseOptions`).
    public init() {}

    /// An independent copy (MediaPipe's options are `NSCopying`); the base options are copied
    /// too, the delegate is shared.
    public func copy() -> PoseLandmarkerOptions {
        let copy = PoseLandmarkerOptions()
        copy.state.value = state.value.copied()
        return copy
    }

    /// The pose settings, after MediaPipe's checks (`numPoses` ≥ 1, every confidence in 0...1).
    func validatedPoseSettings() throws -> PoseLandmarkerGraph.Configuration {
        let pose = state[\.settings]
        try pose.validate()
        return pose
    }
}
