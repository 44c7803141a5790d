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
    private let lock = NSLock()
    private var _baseOptions = BaseOptions()
    private var _runningMode = RunningMode.image
    private var _pose = PoseLandmarkerGraph.Configuration()
    private weak var _delegate: (any PoseLandmarkerLiveStreamDelegate)?

    /// The model (a `.task` bundle holding `pose_detector.tflite` and
    /// `pose_landmarks_detector.tflite`, such as Google's `pose_landmarker_lite.task`,
    /// `pose_landmarker_full.task` or `pose_landmarker_heavy.task`).
    public var baseOptions: BaseOptions {
        get { lock.withLock { _baseOptions } }
        set { lock.withLock { _baseOptions = newValue } }
    }

    /// How the landmarker is fed: `.image` (default), `.video` or `.liveStream`.
    public var runningMode: RunningMode {
        get { lock.withLock { _runningMode } }
        set { lock.withLock { _runningMode = newValue } }
    }

    /// The most poses to find (default 1, must be at least 1). With 1 pose in video and live
    /// stream mode the landmarks are smoothed over time, as in MediaPipe.
    public var numPoses: Int {
        get { lock.withLock { _pose.numPoses } }
        set { lock.withLock { _pose.numPoses = newValue } }
    }

    /// The pose detector's score threshold, 0...1 (default 0.5).
    public var minPoseDetectionConfidence: Float {
        get { lock.withLock { _pose.minPoseDetectionConfidence } }
        set { lock.withLock { _pose.minPoseDetectionConfidence = newValue } }
    }

    /// The landmark model's pose presence threshold, 0...1 (default 0.5): regions whose
    /// presence score is not above it yield no pose.
    public var minPosePresenceConfidence: Float {
        get { lock.withLock { _pose.minPosePresenceConfidence } }
        set { lock.withLock { _pose.minPosePresenceConfidence = newValue } }
    }

    /// In video and live stream mode, the overlap (intersection over union) above which a new
    /// detection replaces a pose tracked from the previous frame, 0...1 (default 0.5).
    public var minTrackingConfidence: Float {
        get { lock.withLock { _pose.minTrackingConfidence } }
        set { lock.withLock { _pose.minTrackingConfidence = newValue } }
    }

    /// Whether results carry a segmentation mask per pose (default false).
    public var outputSegmentationMasks: Bool {
        get { lock.withLock { _pose.outputSegmentationMasks } }
        set { lock.withLock { _pose.outputSegmentationMasks = newValue } }
    }

    /// The iOS API's name for `outputSegmentationMasks`.
    public var shouldOutputSegmentationMasks: Bool {
        get { outputSegmentationMasks }
        set { outputSegmentationMasks = newValue }
    }

    /// Receives the results in `.liveStream` mode (required there, refused in the other
    /// modes). Held weakly, as in MediaPipe.
    public var poseLandmarkerLiveStreamDelegate: (any PoseLandmarkerLiveStreamDelegate)? {
        get { lock.withLock { _delegate } }
        set { lock.withLock { _delegate = newValue } }
    }

    /// Options with MediaPipe's defaults (image mode; no model yet: set `baseOptions`).
    public init() {}

    /// An independent copy (MediaPipe's options are `NSCopying`); the base options are copied
    /// too, the delegate is shared.
    public func copy() -> PoseLandmarkerOptions {
        let copy = PoseLandmarkerOptions()
        lock.withLock {
            copy._baseOptions = _baseOptions.copy()
            copy._runningMode = _runningMode
            copy._pose = _pose
            copy._delegate = _delegate
        }
        return copy
    }

    /// The pose settings, after MediaPipe's checks (`numPoses` ≥ 1, every confidence in 0...1).
    func validatedPoseSettings() throws -> PoseLandmarkerGraph.Configuration {
        let pose = lock.withLock { _pose }
        try pose.validate()
        return pose
    }
}
