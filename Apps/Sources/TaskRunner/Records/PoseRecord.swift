import VisionTasks

/// A `PoseLandmarkerResult` in the form of MediaPipe's reference files
/// (`shared/tools/mediapipe_reference.py`), as `vision-tasks pose` and the server's pose answers
/// write it: landmarks and world landmarks with visibility and presence, and each segmentation
/// mask summarised as its size, its mean and the means of a 16×16 grid of cells (rounded to 5
/// and 4 decimals). `segmentationMasks` is left out when there is none, as there.
public struct PoseRecord: Encodable, Sendable {
    /// Per pose, the 33 normalised landmarks.
    public var landmarks: [[NormalizedLandmark]]
    /// Per pose, the 33 world landmarks in metres.
    public var worldLandmarks: [[Landmark]]
    /// Per pose, its mask's summary; nil when the result has no masks.
    public var segmentationMasks: [MaskSummary]?

    /// The record of `result`.
    public init(_ result: PoseLandmarkerResult) {
        landmarks = result.landmarks
        worldLandmarks = result.worldLandmarks
        segmentationMasks = result.segmentationMasks.isEmpty ? nil : result.segmentationMasks.map(MaskSummary.init)
    }
}
