import XCTest

@testable import VisionTasks

final class DetectionDecoderTests: XCTestCase {
    /// 3 boxes with 1 keypoint each, x-first order, scale 192, sigmoid with clipping at 100.
    private func makeDecoder(minScore: Float? = 0.5) throws -> DetectionDecoder {
        let options = DetectionDecoderOptions(
            numClasses: 1, numBoxes: 3, numCoords: 6, keypointCoordOffset: 4, numKeypoints: 1,
            boxFormat: .xywh, xScale: 192, yScale: 192, wScale: 192, hScale: 192, sigmoidScore: true,
            scoreClippingThreshold: 100, minScoreThreshold: minScore)
        let anchors = [
            Anchor(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1),
            Anchor(xCenter: 0.25, yCenter: 0.75, width: 1, height: 1),
            Anchor(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1),
        ]
        return try DetectionDecoder(options: options, anchors: anchors)
    }

    func testDecodesBoxesKeypointsAndScores() throws {
        let decoder = try makeDecoder()
        // Box 0: centre offset (+19.2, −9.6) px → (0.6, 0.45); size 38.4 × 19.2 px → 0.2 × 0.1.
        // Keypoint offset (−96, 96) px → (0, 1). Logit 0 → score 0.5 (kept: not below 0.5).
        // Box 1: logit 1000 clipped to 100 → score 1. Box 2: logit −0.1 → below 0.5.
        let boxes: [Float] = [
            19.2, -9.6, 38.4, 19.2, -96, 96,
            0, 0, 19.2, 19.2, 0, 0,
            0, 0, 10, 10, 0, 0,
        ]
        let scores: [Float] = [0, 1000, -0.1]
        let detections = try decoder.decode(boxes: boxes, scores: scores)
        XCTAssertEqual(detections.count, 2)
        let d = detections[0]
        XCTAssertEqual(d.score, 0.5)
        XCTAssertEqual(d.xmin, 0.5, accuracy: 1e-6)
        XCTAssertEqual(d.ymin, 0.4, accuracy: 1e-6)
        XCTAssertEqual(d.width, 0.2, accuracy: 1e-6)
        XCTAssertEqual(d.height, 0.1, accuracy: 1e-6)
        XCTAssertEqual(d.keypoints, [Detection.Keypoint(x: 0, y: 1)])
        XCTAssertEqual(detections[1].score, 1)
        XCTAssertEqual(detections[1].xmin, 0.2, accuracy: 1e-6)
        XCTAssertEqual(detections[1].ymin, 0.7, accuracy: 1e-6)
    }

    func testNegativeSizesAreDropped() throws {
        let decoder = try makeDecoder(minScore: nil)
        let boxes: [Float] = [0, 0, -5, 10, 0, 0, 0, 0, 5, 5, 0, 0, 0, 0, 5, .nan, 0, 0]
        let detections = try decoder.decode(boxes: boxes, scores: [5, 5, 5])
        XCTAssertEqual(detections.count, 1)
        XCTAssertEqual(detections[0].width, 5.0 / 192, accuracy: 1e-7)
    }

    func testYXHWOrderAndExponentialSizes() throws {
        let options = DetectionDecoderOptions(
            numClasses: 2, numBoxes: 1, numCoords: 4, boxFormat: .yxhw, xScale: 10, yScale: 10,
            wScale: 1, hScale: 1, applyExponentialOnBoxSize: true)
        let decoder = try DetectionDecoder(
            options: options, anchors: [Anchor(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.4)])
        // y offset 1 → +0.1·0.4; x offset −1 → −0.1·0.2; h = e^0 · 0.4, w = e^0 · 0.2.
        let detections = try decoder.decode(boxes: [1, -1, 0, 0], scores: [0.2, 0.7])
        XCTAssertEqual(detections.count, 1)
        XCTAssertEqual(detections[0].labelID, 1)
        XCTAssertEqual(detections[0].score, 0.7)
        XCTAssertEqual(detections[0].xmin, 0.48 - 0.1, accuracy: 1e-6)
        XCTAssertEqual(detections[0].ymin, 0.54 - 0.2, accuracy: 1e-6)
    }

    func testShapeErrors() throws {
        let decoder = try makeDecoder()
        XCTAssertThrowsError(try decoder.decode(boxes: [0, 1], scores: [0, 0, 0]))
        XCTAssertThrowsError(try decoder.decode(boxes: [Float](repeating: 0, count: 18), scores: [0]))
        XCTAssertThrowsError(
            try DetectionDecoder(options: .palmDetection(minScore: 0.5), anchors: []))
        XCTAssertNoThrow(
            try DetectionDecoder(
                options: .palmDetection(minScore: 0.5),
                anchors: SsdAnchorOptions.palmDetection.generateAnchors()))
    }
}
