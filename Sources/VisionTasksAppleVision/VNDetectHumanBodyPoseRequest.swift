import Foundation
import VisionTasks

/// Revision 1 of `VNDetectHumanBodyPoseRequest`.
public let VNDetectHumanBodyPoseRequestRevision1 = 1

/// Finds people's body poses (Vision's 19 joints), as Vision's `VNDetectHumanBodyPoseRequest`,
/// running MediaPipe's pose landmarker (BlazePose) underneath.
///
/// The model is `pose_landmarker_full.task` in the model folder unless `modelAssetPath` names
/// another bundle; a missing model makes `perform` throw `VNError(.invalidModel)`.
public final class VNDetectHumanBodyPoseRequest: VNRequest, @unchecked Sendable {
    /// VisionTasks' addition: the most people to report (default 2, at least 1). Vision has
    /// no such limit; BlazePose needs one.
    public var maximumBodyCount = 2

    /// VisionTasks' addition: a pose landmarker `.task` bundle to use instead of
    /// `pose_landmarker_full.task` in the model folder.
    public var modelAssetPath: String?

    /// The bodies found by the last perform (in the detector's order); nil before a perform
    /// or after an error.
    public private(set) var results: [VNHumanBodyPoseObservation]?

    /// The model bundle a perform would use.
    public var resolvedModelAssetPath: String {
        modelAssetPath ?? ModelStore().path(for: .poseLandmarkerFullBundle).path
    }

    override func clearResults() { results = nil }

    override func perform(on frame: RequestFrame, slot: TaskSlot) throws {
        guard maximumBodyCount >= 1 else {
            throw VNError(.invalidOption, "maximumBodyCount must be at least 1, got \(maximumBodyCount)")
        }
        let path = resolvedModelAssetPath, count = maximumBodyCount
        let result = try slot.detect(frame, settings: [path, count]) { mode in
            let options = PoseLandmarkerOptions()
            options.baseOptions.modelAssetPath = path
            options.runningMode = mode
            options.numPoses = count
            return try PoseLandmarker(options: options)
        }
        results = result.landmarks.enumerated().map { i, landmarks in
            ObservationConversion.body(
                landmarks: landmarks, presence: result.presenceScores[i] ?? 0,
                mirrored: frame.mirrored)
        }
    }
}
