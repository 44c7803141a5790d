import XCTest

@testable import VisionTasks

final class GeometryTests: XCTestCase {
    func testNormalizeRadians() {
        XCTAssertEqual(Angle.normalizeRadians(0), 0)
        XCTAssertEqual(Angle.normalizeRadians(Float.pi / 2), Float.pi / 2)
        XCTAssertEqual(Angle.normalizeRadians(3 * Float.pi / 2), -Float.pi / 2, accuracy: 1e-6)
        // [−π, π): π wraps to −π.
        XCTAssertEqual(Angle.normalizeRadians(Float(Double.pi)), -Float.pi, accuracy: 1e-6)
        // 90 rad − 14·2π = 2.0354056.
        XCTAssertEqual(Angle.normalizeRadians(90), 2.0354056, accuracy: 1e-6)
    }

    func testPalmRectUsesNinetyRadiansAsMediaPipeDoes() throws {
        // Wrist (kp 0) straight below the middle finger MCP (kp 2) in a square image: the
        // vector points up, atan2 = π/2; with a 90° target the rect would be unrotated, but
        // MediaPipe's hand detector passes 90 as radians: rotation = wrap(90 − π/2) = 0.46461
        // (0.464609 in exact arithmetic; 90 − π/2 is rounded to float first).
        let detection = Detection(
            score: 1, xmin: 0.4, ymin: 0.3, width: 0.2, height: 0.4,
            keypoints: [.init(x: 0.5, y: 0.6), .init(x: 0, y: 0), .init(x: 0.5, y: 0.4)])
        let rect = try XCTUnwrap(DetectionToRect.palm.rect(for: detection, imageWidth: 100, imageHeight: 100))
        XCTAssertEqual(rect.xCenter, 0.5, accuracy: 1e-7)
        XCTAssertEqual(rect.yCenter, 0.5, accuracy: 1e-7)
        XCTAssertEqual(rect.width, 0.2)
        XCTAssertEqual(rect.height, 0.4)
        XCTAssertEqual(rect.rotation, 0.4646094, accuracy: 1e-5)
        XCTAssertEqual(rect.rotation, Float(Double(Float(90) - Float.pi / 2) - 28 * Double.pi))
        // Missing keypoints: no rect.
        XCTAssertNil(
            DetectionToRect.palm.rect(
                for: Detection(score: 1, xmin: 0, ymin: 0, width: 1, height: 1), imageWidth: 10, imageHeight: 10))
    }

    func testPoseAlignmentRect() throws {
        // Hip centre (0.5, 0.5) and the point above the head (0.5, 0.3) in a 100 × 200 image:
        // 40 px apart → a 80 px square, upright.
        let detection = Detection(
            score: 1, xmin: 0, ymin: 0, width: 1, height: 1,
            keypoints: [.init(x: 0.5, y: 0.5), .init(x: 0.5, y: 0.3)])
        let rect = try XCTUnwrap(
            DetectionToRect.poseAlignment.rect(for: detection, imageWidth: 100, imageHeight: 200))
        XCTAssertEqual(rect.xCenter, 0.5)
        XCTAssertEqual(rect.yCenter, 0.5)
        XCTAssertEqual(rect.width, 0.8, accuracy: 1e-6)
        XCTAssertEqual(rect.height, 0.4, accuracy: 1e-6)
        XCTAssertEqual(rect.rotation, 0, accuracy: 1e-7)
    }

    func testRectTransformation() {
        let rect = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.1)
        let hand = RectTransformation.palmToHand.apply(to: rect, imageWidth: 100, imageHeight: 100)
        XCTAssertEqual(hand.yCenter, 0.45, accuracy: 1e-7)  // shifted up by half its height
        XCTAssertEqual(hand.xCenter, 0.5)
        XCTAssertEqual(hand.width, 0.52, accuracy: 1e-6)  // long side 0.2, × 2.6
        XCTAssertEqual(hand.height, 0.52, accuracy: 1e-6)

        // Rotated by 90°: the "up" shift moves along +x. Square long side in pixels of a
        // 200 × 100 image: max(0.2·200, 0.1·100) = 40 px → 0.2 wide, 0.4 high, × 2.6.
        var rotated = rect
        rotated.rotation = .pi / 2
        let out = RectTransformation.palmToHand.apply(to: rotated, imageWidth: 200, imageHeight: 100)
        XCTAssertEqual(out.xCenter, 0.5 + 0.5 * 0.1 * 100 / 200, accuracy: 1e-6)
        XCTAssertEqual(out.yCenter, 0.5, accuracy: 1e-6)
        XCTAssertEqual(out.width, 0.52, accuracy: 1e-6)
        XCTAssertEqual(out.height, 1.04, accuracy: 1e-6)
        XCTAssertEqual(out.rotation, .pi / 2)

        // An extra rotation turns the shift but is not written back, as in MediaPipe.
        let extra = RectTransformation(rotation: .pi / 2, shiftY: -0.5)
        let shifted = extra.apply(to: rect, imageWidth: 100, imageHeight: 100)
        XCTAssertEqual(shifted.rotation, 0)
        XCTAssertEqual(shifted.xCenter, 0.5 + 0.05, accuracy: 1e-6)
        XCTAssertEqual(shifted.yCenter, 0.5, accuracy: 1e-6)
    }

    func testLandmarkProjectionFromARotatedRect() {
        let rect = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5, rotation: .pi / 2)
        // The crop's right edge middle (1, 0.5) is, after a 90° turn, below the centre.
        let lm = NormalizedLandmark(x: 1, y: 0.5, z: 0.2, visibility: 0.9)
        let out = LandmarkProjection.project([lm], from: rect)[0]
        XCTAssertEqual(out.x, 0.5, accuracy: 1e-6)
        XCTAssertEqual(out.y, 0.75, accuracy: 1e-6)
        XCTAssertEqual(out.z, 0.1, accuracy: 1e-7)  // z scales with the rect width
        XCTAssertEqual(out.visibility, 0.9)

        let world = LandmarkProjection.rotateWorld([Landmark(x: 1, y: 0, z: 3)], by: rect)[0]
        XCTAssertEqual(world.x, 0, accuracy: 1e-6)
        XCTAssertEqual(world.y, 1, accuracy: 1e-6)
        XCTAssertEqual(world.z, 3)

        let unpadded = LandmarkProjection.removingLetterbox(
            [NormalizedLandmark(x: 0.5, y: 0.25, z: 0.5)],
            LetterboxPadding(left: 0.25, top: 0, right: 0.25, bottom: 0))[0]
        XCTAssertEqual(unpadded.x, 0.5)
        XCTAssertEqual(unpadded.y, 0.25)
        XCTAssertEqual(unpadded.z, 1)
    }

    func testMatrixProjectionScalesZByTheRegionWidth() {
        let roi = RotatedRect(centerX: 60, centerY: 40, width: 40, height: 40, rotation: 0)
        let m = ProjectionMatrix(roi: roi, imageWidth: 200, imageHeight: 100)
        XCTAssertEqual(m.zScale, 0.2, accuracy: 1e-7)
        let out = LandmarkProjection.project([NormalizedLandmark(x: 0.5, y: 1, z: 1)], by: m)[0]
        XCTAssertEqual(out.x, 0.3, accuracy: 1e-6)
        XCTAssertEqual(out.y, 0.6, accuracy: 1e-6)
        XCTAssertEqual(out.z, 0.2, accuracy: 1e-6)
        XCTAssertNil(ProjectionMatrix(values: [1, 2, 3]))
        XCTAssertNil(ProjectionMatrix(values: [Float](repeating: 0, count: 16))?.inverted())  // singular
        let inverse = try? XCTUnwrap(m.inverted())
        let back = inverse?.projectXY(0.3, 0.6)
        XCTAssertEqual(back?.x ?? -1, 0.5, accuracy: 1e-5)
        XCTAssertEqual(back?.y ?? -1, 1, accuracy: 1e-5)
    }

    func testHandLandmarksToRect() throws {
        // An upright hand: wrist at the bottom, MCPs and PIPs above it, in a 100 × 100 image.
        var lms = [NormalizedLandmark](repeating: NormalizedLandmark(x: 0.5, y: 0.5, z: 0), count: 21)
        lms[0] = NormalizedLandmark(x: 0.5, y: 0.8, z: 0)  // wrist
        lms[1] = NormalizedLandmark(x: 0.4, y: 0.75, z: 0)
        lms[2] = NormalizedLandmark(x: 0.35, y: 0.7, z: 0)
        lms[3] = NormalizedLandmark(x: 0.3, y: 0.65, z: 0)
        lms[5] = NormalizedLandmark(x: 0.4, y: 0.5, z: 0)  // index MCP
        lms[6] = NormalizedLandmark(x: 0.4, y: 0.4, z: 0)
        lms[9] = NormalizedLandmark(x: 0.5, y: 0.5, z: 0)  // middle MCP
        lms[10] = NormalizedLandmark(x: 0.5, y: 0.4, z: 0)
        lms[13] = NormalizedLandmark(x: 0.6, y: 0.5, z: 0)  // ring MCP
        lms[14] = NormalizedLandmark(x: 0.6, y: 0.4, z: 0)
        lms[17] = NormalizedLandmark(x: 0.7, y: 0.55, z: 0)
        lms[18] = NormalizedLandmark(x: 0.7, y: 0.45, z: 0)
        let rect = try XCTUnwrap(LandmarksToRect.hand(lms, imageWidth: 100, imageHeight: 100))
        XCTAssertEqual(rect.rotation, 0, accuracy: 1e-6)
        // Bounds of the 12 used landmarks: x 0.3…0.7, y 0.4…0.8.
        XCTAssertEqual(rect.xCenter, 0.5, accuracy: 1e-6)
        XCTAssertEqual(rect.yCenter, 0.6, accuracy: 1e-6)
        XCTAssertEqual(rect.width, 0.4, accuracy: 1e-6)
        XCTAssertEqual(rect.height, 0.4, accuracy: 1e-6)
        let next = RectTransformation.handLandmarksToNextFrame.apply(to: rect, imageWidth: 100, imageHeight: 100)
        XCTAssertEqual(next.yCenter, 0.56, accuracy: 1e-6)
        XCTAssertEqual(next.width, 0.8, accuracy: 1e-6)
    }

    func testPoseRectFromAuxiliaryLandmarks() throws {
        let aux = [NormalizedLandmark(x: 0.5, y: 0.6, z: 0), NormalizedLandmark(x: 0.5, y: 0.2, z: 0)]
        let rect = try XCTUnwrap(LandmarksToRect.pose(auxiliaryLandmarks: aux, imageWidth: 100, imageHeight: 100))
        XCTAssertEqual(rect.xCenter, 0.5)
        XCTAssertEqual(rect.yCenter, 0.6, accuracy: 1e-6)
        XCTAssertEqual(rect.width, 0.8 * 1.25, accuracy: 1e-6)
        XCTAssertEqual(rect.rotation, 0, accuracy: 1e-6)
        // The detection MediaPipe builds from landmarks keeps its FLT_MIN start for the maxima.
        let negative = LandmarksToRect.detection([NormalizedLandmark(x: -0.5, y: -0.5, z: 0)])
        XCTAssertEqual(negative.xmin, -0.5)
        XCTAssertEqual(negative.width, Float.leastNormalMagnitude + 0.5)
    }

    func testAxisAlignedBoxIoU() {
        let a = AxisAlignedBox(NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.4, height: 0.4, rotation: 1))
        XCTAssertEqual(a.xmin, 0.3, accuracy: 1e-7)  // rotation ignored
        let b = AxisAlignedBox(NormalizedRect(xCenter: 0.6, yCenter: 0.5, width: 0.4, height: 0.4))
        XCTAssertEqual(a.intersectionOverUnion(b), 0.12 / 0.2, accuracy: 1e-6)
        XCTAssertEqual(a.intersectionOverUnion(AxisAlignedBox(x: 2, y: 2, width: 1, height: 1)), 0)
    }
}
