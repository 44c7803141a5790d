import XCTest

@testable import VisionTasks

/// RefineLandmarksFromHeatmapCalculator's rules on hand-made heatmaps.
final class HeatmapRefinementTests: XCTestCase {
    /// A 16×16 heatmap with 2 channels, every logit very negative except `peaks`
    /// (row, col, channel, logit).
    private func heatmap(_ peaks: [(Int, Int, Int, Float)]) -> [Float] {
        var values = [Float](repeating: -30, count: 16 * 16 * 2)
        for (row, col, channel, logit) in peaks { values[(row * 16 + col) * 2 + channel] = logit }
        return values
    }

    private func refine(_ landmarks: [NormalizedLandmark], _ values: [Float]) -> [NormalizedLandmark] {
        var out = landmarks
        values.withUnsafeBufferPointer {
            HeatmapRefinement.refine(&out, heatmap: $0, height: 16, width: 16, kernelSize: 7, minConfidence: 0.5)
        }
        return out
    }

    func testConfidentPeaksMoveTheLandmarkToTheirWeightedCentre() {
        // Two equal peaks at columns 5 and 7 of row 4 for channel 0: centre column 6.
        let values = heatmap([(4, 5, 0, 10), (4, 7, 0, 10)])
        let landmarks = [
            NormalizedLandmark(x: 6.3 / 16, y: 4.9 / 16, z: 0.1, visibility: 0.7, presence: 0.8),
            NormalizedLandmark(x: 0.5, y: 0.5, z: 0, visibility: 0.2, presence: 0.3),
        ]
        let out = refine(landmarks, values)
        XCTAssertEqual(out[0].x, 6.0 / 16, accuracy: 1e-4)
        XCTAssertEqual(out[0].y, 4.0 / 16, accuracy: 1e-4)
        XCTAssertEqual(out[0].z, 0.1)
        XCTAssertEqual(out[0].visibility, 0.7, "visibility is not refined")
        XCTAssertEqual(out[0].presence, 0.8, "presence is not refined")
        XCTAssertEqual(out[1], landmarks[1], "channel 1 has no confident cell")
    }

    func testPeaksOutsideTheWindowAndPointsOutsideTheMapAreIgnored() {
        // The peak is 4 columns away: outside the 7×7 window.
        let far = heatmap([(8, 12, 0, 10)])
        let landmark = NormalizedLandmark(x: 8.5 / 16, y: 8.5 / 16, z: 0)
        XCTAssertEqual(refine([landmark, landmark], far)[0], landmark)
        // Points outside [0, 1) stay, even next to a peak; (-0.5/16) truncates to column 0.
        let edge = heatmap([(0, 0, 0, 10), (0, 0, 1, 10)])
        let outside = NormalizedLandmark(x: -1.5 / 16, y: 0.1, z: 0)
        let nearZero = NormalizedLandmark(x: -0.5 / 16, y: 0.1 / 16, z: 0)
        let out = refine([outside, nearZero], edge)
        XCTAssertEqual(out[0], outside)
        XCTAssertEqual(out[1].x, 0, accuracy: 1e-4)
        XCTAssertEqual(out[1].y, 0, accuracy: 1e-4)
        // NaN coordinates and a heatmap of the wrong size change nothing.
        let nan = NormalizedLandmark(x: .nan, y: 0.5, z: 0)
        XCTAssertTrue(refine([nan, landmark], edge)[0].x.isNaN)
        var unchanged = [landmark, landmark]
        [Float](repeating: 10, count: 7).withUnsafeBufferPointer {
            HeatmapRefinement.refine(&unchanged, heatmap: $0, height: 16, width: 16, kernelSize: 7, minConfidence: 0.5)
        }
        XCTAssertEqual(unchanged, [landmark, landmark])
    }
}
