import XCTest

@testable import VisionTasks

final class DetectionProjectionTests: XCTestCase {
    func testLetterboxRemoval() {
        let d = Detection(
            score: 1, xmin: 0.25, ymin: 0.125, width: 0.5, height: 0.25, keypoints: [.init(x: 0.5, y: 0.125)])
        let out = d.removingLetterbox(LetterboxPadding(left: 0, top: 0.125, right: 0, bottom: 0.125))
        XCTAssertEqual(out.xmin, 0.25)
        XCTAssertEqual(out.ymin, 0)
        XCTAssertEqual(out.width, 0.5)
        XCTAssertEqual(out.height, 0.25 / 0.75, accuracy: 1e-7)
        XCTAssertEqual(out.keypoints, [.init(x: 0.5, y: 0)])
    }

    func testMatrixProjectionOfALetterboxedTensor() throws {
        // 640×480 image into a square tensor: the region is 640×640, padded 1/8 top and bottom.
        let t = try ImageToTensor.transform(
            imageWidth: 640, imageHeight: 480, region: nil, options: .palmDetection)
        let d = Detection(
            score: 1, xmin: 0.25, ymin: 0.125, width: 0.5, height: 0.75, keypoints: [.init(x: 0.5, y: 0.5)])
        let out = d.projected(by: t.matrix)
        XCTAssertEqual(out.xmin, 0.25, accuracy: 1e-6)
        XCTAssertEqual(out.ymin, 0, accuracy: 1e-6)
        XCTAssertEqual(out.width, 0.5, accuracy: 1e-6)
        XCTAssertEqual(out.height, 1, accuracy: 1e-6)
        XCTAssertEqual(out.keypoints[0].x, 0.5, accuracy: 1e-6)
        XCTAssertEqual(out.keypoints[0].y, 0.5, accuracy: 1e-6)
    }

    func testRotatedProjectionTakesTheBoundsOfTheCorners() {
        // A crop of the whole (square) image rotated by 90°: the tensor's x axis runs down the
        // image. The box (0, 0)–(0.5, 0.25) lands on x ∈ [0.75, 1], y ∈ [0, 0.5].
        let roi = RotatedRect(centerX: 50, centerY: 50, width: 100, height: 100, rotation: .pi / 2)
        let m = ProjectionMatrix(roi: roi, imageWidth: 100, imageHeight: 100)
        let out = Detection(score: 1, xmin: 0, ymin: 0, width: 0.5, height: 0.25).projected(by: m)
        XCTAssertEqual(out.xmin, 0.75, accuracy: 1e-6)
        XCTAssertEqual(out.ymin, 0, accuracy: 1e-6)
        XCTAssertEqual(out.width, 0.25, accuracy: 1e-6)
        XCTAssertEqual(out.height, 0.5, accuracy: 1e-6)
    }
}
