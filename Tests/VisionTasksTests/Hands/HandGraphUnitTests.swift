import Foundation
import XCTest

@testable import VisionTasks

/// The small steps of the hand and gesture graphs, on made-up values.
final class HandGraphUnitTests: XCTestCase {
    func testHandednessIsTheBinaryTopOne() {
        let right = HandLandmarksDetector.handedness(rightScore: 0.8)
        XCTAssertEqual(right, ResultCategory(index: 0, score: 0.8, categoryName: "Right", displayName: "Right"))
        let left = HandLandmarksDetector.handedness(rightScore: 0.25)
        XCTAssertEqual(left, ResultCategory(index: 1, score: 0.75, categoryName: "Left", displayName: "Left"))
        // A tie keeps the first class.
        XCTAssertEqual(HandLandmarksDetector.handedness(rightScore: 0.5).categoryName, "Right")
    }

    func testRightHandScore() throws {
        let left = ResultCategory(index: 1, score: 0.75, categoryName: "Left", displayName: nil)
        XCTAssertEqual(try GestureEmbeddingInput.rightHandScore([left]), 0.25)
        let right = ResultCategory(index: 0, score: 0.9, categoryName: "RIGHT", displayName: nil)
        XCTAssertEqual(try GestureEmbeddingInput.rightHandScore([right]), 0.9)
        XCTAssertThrowsError(try GestureEmbeddingInput.rightHandScore([]))
        XCTAssertThrowsError(
            try GestureEmbeddingInput.rightHandScore([ResultCategory(index: 0, score: 0.4, categoryName: "Right", displayName: nil)]))
        XCTAssertThrowsError(
            try GestureEmbeddingInput.rightHandScore([ResultCategory(index: 0, score: 0.9, categoryName: "Up", displayName: nil)]))
    }

    func testLandmarksMatrixIsWristCentredAndScaled() throws {
        // A 200×100 image: x is scaled by 1, y by 0.5 before normalisation.
        let landmarks = (0..<21).map { i in
            NormalizedLandmark(x: 0.5 + Float(i) * 0.01, y: 0.4 + Float(i % 3) * 0.02, z: Float(i) * 0.001)
        }
        let values = try GestureEmbeddingInput.landmarks(landmarks, imageWidth: 200, imageHeight: 100)
        XCTAssertEqual(values.count, 63)
        XCTAssertEqual(Array(values[0..<3]), [0, 0, 0])
        // Extent: x spans 0.2, y spans 0.04 × 0.5 = 0.02; the scale is the larger + 1e-5.
        let scale: Float = 0.2 + 1e-5
        XCTAssertEqual(values[60], 0.2 / scale, accuracy: 1e-5)
        XCTAssertEqual(values[62], 0.02 / scale, accuracy: 1e-5)
        XCTAssertEqual(values[3 * 2 + 1], 0.02 / scale, accuracy: 1e-5)
        let world = try GestureEmbeddingInput.worldLandmarks(
            landmarks.map { Landmark(x: $0.x, y: $0.y, z: $0.z) })
        // No aspect-ratio step for world landmarks.
        XCTAssertEqual(world[3 * 2 + 1], 0.04 / (0.2 + 1e-5), accuracy: 1e-5)
        XCTAssertThrowsError(try GestureEmbeddingInput.worldLandmarks([]))
    }

    func testCombinedPrediction() {
        func c(_ label: String?, _ score: Float) -> Classification {
            Classification(index: 0, score: score, label: label, displayName: "x")
        }
        // Custom first: its best is not the background, so it wins.
        XCTAssertEqual(
            CombinedPrediction.combine([[c("divide", 0.6), c("none", 0.3)], [c("Victory", 0.9)]]),
            Classification(index: -1, score: 0.6, label: "divide", displayName: nil))
        // The custom list is empty (all below its threshold): the canned one decides.
        XCTAssertEqual(CombinedPrediction.combine([[], [c("Victory", 0.9), c("None", 0.1)]])?.label, "Victory")
        // Both say "None": the first one's.
        XCTAssertEqual(
            CombinedPrediction.combine([[c("None", 0.7)], [c("None", 0.8)]]),
            Classification(index: -1, score: 0.7, label: "None", displayName: nil))
        // The first "None" is remembered, the second classifier's gesture wins.
        XCTAssertEqual(CombinedPrediction.combine([[c("None", 0.7)], [c("Thumb_Up", 0.8)]])?.label, "Thumb_Up")
        // First of equal maxima.
        XCTAssertEqual(CombinedPrediction.combine([[c("a", 0.5), c("b", 0.5)]])?.label, "a")
        XCTAssertNil(CombinedPrediction.combine([[], []]))
        // Unlabelled classes are not the background.
        XCTAssertEqual(CombinedPrediction.combine([[c(nil, 0.4)], [c("None", 0.9)]])?.score, 0.4)
    }

    func testLabelFileLines() {
        XCTAssertEqual(ClassificationLabels.lines(of: Array("a\nb\n".utf8)), ["a", "b"])
        XCTAssertEqual(ClassificationLabels.lines(of: Array("a\r\nb\rc".utf8)), ["a", "b", "c"])
        // MediaPipe's ForEachLine, then one trailing empty line dropped.
        XCTAssertEqual(ClassificationLabels.lines(of: Array("a\n\nb\n\n".utf8)), ["a", "", "b"])
        XCTAssertEqual(ClassificationLabels.lines(of: []), [])
    }
}
