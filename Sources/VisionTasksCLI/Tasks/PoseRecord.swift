import VisionTasks

/// A `PoseLandmarkerResult` in the form of MediaPipe's reference files
/// (`shared/tools/mediapipe_reference.py`): landmarks and world landmarks with visibility and
/// presence, and each segmentation mask summarised as its size, its mean and the means of a
/// 16×16 grid of cells (rounded to 5 and 4 decimals). `segmentationMasks` is left out when
/// there is none, as there.
struct PoseRecord: Encodable {
    var landmarks: [[NormalizedLandmark]]
    var worldLandmarks: [[Landmark]]
    var segmentationMasks: [MaskSummary]?

    init(_ result: PoseLandmarkerResult) {
        landmarks = result.landmarks
        worldLandmarks = result.worldLandmarks
        segmentationMasks = result.segmentationMasks.isEmpty ? nil : result.segmentationMasks.map(MaskSummary.init)
    }
}

/// A mask's size, mean and 16×16 grid of cell means (`MPMask.summary(grid:)`), rounded as the
/// reference files round them.
struct MaskSummary: Encodable, Equatable {
    static let gridSize = 16

    var width: Int
    var height: Int
    var mean: Double
    var grid16: [[Double]]

    init(_ mask: MPMask) {
        let summary = mask.summary(grid: Self.gridSize)
        width = mask.width
        height = mask.height
        mean = Self.rounded(summary.mean, places: 5)
        grid16 = summary.cells.map { row in row.map { Self.rounded($0, places: 4) } }
    }

    static func rounded(_ value: Double, places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (value * scale).rounded() / scale
    }
}
