import XCTest

@testable import VisionTasks

final class NonMaxSuppressionTests: XCTestCase {
    private func box(_ score: Float, _ x: Float, _ y: Float, _ w: Float, _ h: Float, kp: Float = 0) -> Detection {
        Detection(score: score, xmin: x, ymin: y, width: w, height: h, keypoints: [.init(x: kp, y: kp)])
    }

    func testWeightedAveragesOverlappingBoxes() {
        let a = box(0.9, 0.0, 0.0, 0.4, 0.4, kp: 0.1)
        let b = box(0.6, 0.1, 0.0, 0.4, 0.4, kp: 0.4)  // IoU with a: 0.12/0.2 = 0.6
        let c = box(0.7, 0.6, 0.6, 0.2, 0.2, kp: 0.7)  // disjoint
        let kept = NonMaxSuppression.palmDetection.apply([a, b, c])
        XCTAssertEqual(kept.count, 2)
        // Highest first: a merged with b, weights 0.9 and 0.6.
        let merged = kept[0]
        XCTAssertEqual(merged.score, 0.9)
        XCTAssertEqual(merged.xmin, (0 * 0.9 + 0.1 * 0.6) / 1.5, accuracy: 1e-6)
        XCTAssertEqual(merged.width, (0.4 * 0.9 + 0.5 * 0.6) / 1.5 - merged.xmin, accuracy: 1e-6)
        XCTAssertEqual(merged.keypoints[0].x, (0.1 * 0.9 + 0.4 * 0.6) / 1.5, accuracy: 1e-6)
        // c alone: averaged with itself (weight 0.7), equal up to float rounding.
        XCTAssertEqual(kept[1].xmin, c.xmin, accuracy: 1e-7)
        XCTAssertEqual(kept[1].width, c.width, accuracy: 1e-7)
        XCTAssertEqual(kept[1].score, c.score)
    }

    func testDefaultDropsOverlapsAboveThreshold() {
        let a = box(0.9, 0.0, 0.0, 0.4, 0.4)
        let b = box(0.8, 0.1, 0.0, 0.4, 0.4)  // IoU 0.6
        let c = box(0.7, 0.3, 0.0, 0.4, 0.4)  // IoU with a: 0.04/0.28
        var nms = NonMaxSuppression(
            minSuppressionThreshold: 0.5, overlapType: .intersectionOverUnion, algorithm: .default)
        XCTAssertEqual(nms.apply([c, b, a]), [a, c])
        nms.maxNumDetections = 1
        XCTAssertEqual(nms.apply([c, b, a]), [a])
        nms.maxNumDetections = -1
        nms.minScoreThreshold = 0.75
        XCTAssertEqual(nms.apply([c, b, a]), [a])
    }

    func testOverlapMeasures() {
        let nms = NonMaxSuppression(minSuppressionThreshold: 0, overlapType: .jaccard, algorithm: .default)
        let r = AxisAlignedBox(x: 0, y: 0, width: 0.4, height: 0.4)
        let t = AxisAlignedBox(x: 0.1, y: 0, width: 0.2, height: 0.2)
        // Intersection 0.04; union box 0.4 × 0.4; tested area 0.04; IoU 0.04/0.16.
        XCTAssertEqual(nms.similarity(r, t), 0.25, accuracy: 1e-6)
        var modified = nms
        modified.overlapType = .modifiedJaccard
        XCTAssertEqual(modified.similarity(r, t), 1, accuracy: 1e-6)
        var iou = nms
        iou.overlapType = .intersectionOverUnion
        XCTAssertEqual(iou.similarity(r, t), 0.25, accuracy: 1e-6)
        // Touching edges intersect with zero area.
        XCTAssertEqual(iou.similarity(r, AxisAlignedBox(x: 0.4, y: 0, width: 0.1, height: 0.1)), 0)
    }

    func testZeroAreaTopBoxStopsWeightedSuppression() {
        // MediaPipe: a box that does not overlap itself leaves nothing suppressed, which ends
        // the loop after emitting it.
        let flat = box(0.9, 0.5, 0.5, 0, 0.1)
        let other = box(0.5, 0, 0, 0.2, 0.2)
        XCTAssertEqual(NonMaxSuppression.palmDetection.apply([other, flat]), [flat])
    }
}
