import Foundation

/// MediaPipe's RefineLandmarksFromHeatmapCalculator (docs/pipelines.md §5.2 step 4): each
/// landmark's x and y become the confidence-weighted centre of a `kernelSize`² window of its
/// heatmap channel around the landmark, when the window's highest confidence reaches
/// `minConfidence`. Visibility and presence are left as they are (the pose graph does not
/// refine them).
enum HeatmapRefinement {
    /// Refines `landmarks` (normalised to the model input) in place. `heatmap` holds logits in
    /// HWC order, `height × width × landmarks.count` values; with any other size the landmarks
    /// are left unchanged.
    static func refine(
        _ landmarks: inout [NormalizedLandmark], heatmap: UnsafeBufferPointer<Float>, height: Int, width: Int,
        kernelSize: Int, minConfidence: Float
    ) {
        let channels = landmarks.count
        guard height > 0, width > 0, channels > 0, heatmap.count == height * width * channels else { return }
        let offset = (kernelSize - 1) / 2
        let rowSize = width * channels
        for index in landmarks.indices {
            // `int center_col = x * width`: truncation toward zero; points outside stay intact.
            guard let col = truncatedIndex(landmarks[index].x * Float(width), limit: width),
                let row = truncatedIndex(landmarks[index].y * Float(height), limit: height)
            else { continue }
            let beginCol = max(0, col - offset), endCol = min(width, col + offset + 1)
            let beginRow = max(0, row - offset), endRow = min(height, row + offset + 1)
            var sum: Float = 0
            var weightedCol: Float = 0
            var weightedRow: Float = 0
            var maxConfidence: Float = 0
            for r in beginRow..<endRow {
                for c in beginCol..<endCol {
                    let confidence = PoseLandmarksDetector.sigmoid(heatmap[rowSize * r + channels * c + index])
                    sum += confidence
                    maxConfidence = max(maxConfidence, confidence)
                    weightedCol += Float(c) * confidence
                    weightedRow += Float(r) * confidence
                }
            }
            if maxConfidence >= minConfidence && sum > 0 {
                landmarks[index].x = weightedCol / Float(width) / sum
                landmarks[index].y = weightedRow / Float(height) / sum
            }
        }
    }

    /// `Int(value)` (toward zero) when that lies in 0..<limit; nil otherwise (also for NaN).
    private static func truncatedIndex(_ value: Float, limit: Int) -> Int? {
        guard value > -1, value < Float(limit) else { return nil }
        return Int(value)
    }
}
