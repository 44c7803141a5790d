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

/// A mask's size, mean and 16×16 grid of cell means; cell (gx, gy) covers rows
/// gy·h/16 ..< (gy+1)·h/16 and columns gx·w/16 ..< (gx+1)·w/16 (integer division).
struct MaskSummary: Encodable, Equatable {
    static let gridSize = 16

    var width: Int
    var height: Int
    var mean: Double
    var grid16: [[Double]]

    init(_ mask: MPMask) {
        let values = mask.float32Data
        let w = mask.width, h = mask.height, n = Self.gridSize
        width = w
        height = h
        mean = Self.rounded(values.reduce(0.0) { $0 + Double($1) } / Double(values.count), places: 5)
        grid16 = (0..<n).map { gy in
            (0..<n).map { gx in
                let rows = (gy * h / n)..<((gy + 1) * h / n)
                let cols = (gx * w / n)..<((gx + 1) * w / n)
                guard !rows.isEmpty, !cols.isEmpty else { return 0 }  // numpy's mean of nothing is NaN
                var sum = 0.0
                for y in rows {
                    for x in cols { sum += Double(values[y * w + x]) }
                }
                return Self.rounded(sum / Double(rows.count * cols.count), places: 4)
            }
        }
    }

    static func rounded(_ value: Double, places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (value * scale).rounded() / scale
    }
}
