import Foundation
import LiteInterpreter
import MediaIO
import TestSupport
@testable import VisionTasks
import XCTest

/// The detector stage on MediaPipe's exact input pixels: its detections must sit where
/// MediaPipe found the hands and people.
final class SSDDetectorTests: XCTestCase {
    private struct Reference: Decodable {
        struct Point: Decodable { var x: Float; var y: Float }
        struct Result: Decodable { var landmarks: [[Point]] }
        var gesture: Result
        var pose: Result
    }

    private func load(_ name: String) throws -> (PixelBuffer, Reference) {
        let pixels = try ImageDecoder.decode(
            contentsOfFile: try SharedTestData.file("reference/\(name).pixels.png").path
        ).pixels
        let json = try Data(contentsOf: try SharedTestData.file("reference/\(name).json"))
        return (pixels, try JSONDecoder().decode(Reference.self, from: json))
    }

    func testPalmKeypointsFallOnMediaPipesWrists() throws {
        let model = try Model(contentsOf: try SharedTestData.installedModel("palm_detection_full.tflite"))
        let detector = try SSDDetector(
            model: model, configuration: .palmDetection(minScore: 0.5), threadCount: 1)
        let (pixels, reference) = try load("hands_two_open_palm_and_hanging")
        let detections = try ImagePixels.withPixels(of: pixels) { try detector.detect($0, region: nil) }
        XCTAssertEqual(reference.gesture.landmarks.count, 2)
        XCTAssertGreaterThanOrEqual(detections.count, 2)
        // Keypoint 0 of a palm detection is the wrist; MediaPipe's landmark 0 is the wrist too.
        for hand in reference.gesture.landmarks {
            let wrist = hand[0]
            let nearest = detections.map { d in
                hypotf(d.keypoints[0].x - wrist.x, d.keypoints[0].y - wrist.y)
            }.min() ?? .infinity
            XCTAssertLessThan(nearest, 0.05, "no palm detection near the wrist at \(wrist)")
        }
        for d in detections {
            XCTAssertGreaterThanOrEqual(d.score, 0.5)
            XCTAssertEqual(d.keypoints.count, 7)
        }
    }

    func testPoseDetectionCentresOnMediaPipesHips() throws {
        let model = try Model(contentsOf: try SharedTestData.installedModel("pose_detection.tflite"))
        let detector = try SSDDetector(
            model: model, configuration: .poseDetection(minScore: 0.5), threadCount: 1)
        let (pixels, reference) = try load("pose_fullbody_yoga_warrior")
        let detections = try ImagePixels.withPixels(of: pixels) { try detector.detect($0, region: nil) }
        XCTAssertEqual(reference.pose.landmarks.count, 1)
        let pose = reference.pose.landmarks[0]
        // Keypoint 0 of a pose detection is the midpoint of the hips (landmarks 23 and 24).
        let hipX = (pose[23].x + pose[24].x) / 2, hipY = (pose[23].y + pose[24].y) / 2
        let first = try XCTUnwrap(detections.first)
        XCTAssertEqual(first.keypoints.count, 4)
        XCTAssertLessThan(hypotf(first.keypoints[0].x - hipX, first.keypoints[0].y - hipY), 0.05)
    }

    func testNoDetectionsOnAPictureWithoutHands() throws {
        let model = try Model(contentsOf: try SharedTestData.installedModel("palm_detection_full.tflite"))
        let detector = try SSDDetector(
            model: model, configuration: .palmDetection(minScore: 0.5), threadCount: 1)
        let (pixels, reference) = try load("neg_banana")
        XCTAssertEqual(reference.gesture.landmarks.count, 0)
        let detections = try ImagePixels.withPixels(of: pixels) { try detector.detect($0, region: nil) }
        XCTAssertTrue(detections.isEmpty, "\(detections.count) palms on a banana")
    }

    func testAModelOfTheWrongShapeIsRefused() throws {
        let model = try Model(contentsOf: try SharedTestData.installedModel("hand_landmark_full.tflite"))
        XCTAssertThrowsError(
            try SSDDetector(model: model, configuration: .palmDetection(minScore: 0.5), threadCount: 1)
        ) { error in
            guard case TasksError.invalidArgument(let message) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertTrue(message.contains("192, 192, 3"), message)
        }
    }
}
