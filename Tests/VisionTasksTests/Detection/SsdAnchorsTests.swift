import XCTest

@testable import VisionTasks

final class SsdAnchorsTests: XCTestCase {
    func testPalmDetectorAnchors() throws {
        let anchors = try SsdAnchorOptions.palmDetection.generateAnchors()
        // Stride 8 on 192: 24×24 locations × 2 anchors (ratio 1 + interpolated); strides
        // 16, 16, 16 share a 12×12 map with 3 × 2 anchors per location.
        XCTAssertEqual(anchors.count, 24 * 24 * 2 + 12 * 12 * 6)
        XCTAssertEqual(anchors.count, 2016)
        XCTAssertEqual(anchors[0], Anchor(xCenter: 0.5 / 24, yCenter: 0.5 / 24, width: 1, height: 1))
        XCTAssertEqual(anchors[1], anchors[0])
        XCTAssertEqual(anchors[2], Anchor(xCenter: 1.5 / 24, yCenter: 0.5 / 24, width: 1, height: 1))
        XCTAssertEqual(anchors[48], Anchor(xCenter: 0.5 / 24, yCenter: 1.5 / 24, width: 1, height: 1))
        XCTAssertEqual(anchors[1152], Anchor(xCenter: 0.5 / 12, yCenter: 0.5 / 12, width: 1, height: 1))
        XCTAssertEqual(anchors[1157], anchors[1152])
        XCTAssertEqual(anchors[1158].xCenter, 1.5 / 12)
        XCTAssertEqual(anchors[2015], Anchor(xCenter: 11.5 / 12, yCenter: 11.5 / 12, width: 1, height: 1))
    }

    func testPoseDetectorAnchors() throws {
        let anchors = try SsdAnchorOptions.poseDetection.generateAnchors()
        // 28×28×2 (stride 8), 14×14×2 (stride 16), 7×7×6 (strides 32, 32, 32) on 224.
        XCTAssertEqual(anchors.count, 28 * 28 * 2 + 14 * 14 * 2 + 7 * 7 * 6)
        XCTAssertEqual(anchors.count, 2254)
        XCTAssertEqual(anchors[1568], Anchor(xCenter: 0.5 / 14, yCenter: 0.5 / 14, width: 1, height: 1))
        XCTAssertEqual(anchors[1960], Anchor(xCenter: 0.5 / 7, yCenter: 0.5 / 7, width: 1, height: 1))
        XCTAssertEqual(anchors[2253], Anchor(xCenter: 6.5 / 7, yCenter: 6.5 / 7, width: 1, height: 1))
    }

    func testScaledAnchorsAndInterpolatedScale() throws {
        // Two layers (strides 8, 16) on 32×32, scales 0.2 → 0.8, aspect ratios 1 and 4.
        let options = SsdAnchorOptions(
            inputSizeWidth: 32, inputSizeHeight: 32, minScale: 0.2, maxScale: 0.8, numLayers: 2,
            strides: [8, 16], aspectRatios: [1, 4])
        let anchors = try options.generateAnchors()
        XCTAssertEqual(anchors.count, 4 * 4 * 3 + 2 * 2 * 3)
        // Layer 0, scale 0.2: ratio 1 → 0.2 × 0.2; ratio 4 → w 0.4, h 0.1; interpolated
        // √(0.2 · 0.8) = 0.4 (layer 1's scale is 0.8).
        XCTAssertEqual(anchors[0].width, 0.2, accuracy: 1e-7)
        XCTAssertEqual(anchors[0].height, 0.2, accuracy: 1e-7)
        XCTAssertEqual(anchors[1].width, 0.4, accuracy: 1e-7)
        XCTAssertEqual(anchors[1].height, 0.1, accuracy: 1e-7)
        XCTAssertEqual(anchors[2].width, 0.4, accuracy: 1e-7)
        XCTAssertEqual(anchors[2].height, 0.4, accuracy: 1e-7)
        // Last layer: interpolated with the next scale 1: √0.8.
        XCTAssertEqual(anchors[50].width, 0.8944272, accuracy: 1e-6)
        XCTAssertEqual(anchors[48].xCenter, 0.25)
    }

    func testInvalidOptionsAreRefused() {
        var options = SsdAnchorOptions.palmDetection
        options.strides = [8, 16]
        XCTAssertThrowsError(try options.generateAnchors()) { error in
            guard case TasksError.invalidArgument(let message) = error else {
                return XCTFail("\(error)")
            }
            XCTAssertTrue(message.contains("4 layers need 4 strides"), message)
        }
        options = .palmDetection
        options.strides = [8, 0, 16, 16]
        XCTAssertThrowsError(try options.generateAnchors())
    }
}
