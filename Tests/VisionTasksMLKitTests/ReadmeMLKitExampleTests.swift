import Foundation
import MediaIO
import TestSupport
import VisionTasks
import VisionTasksMLKit
import XCTest

/// README.md's ML Kit example, line for line (only the path differs), so it cannot rot.
final class ReadmeMLKitExampleTests: XCTestCase {
    func testTheREADMEMLKitExampleRunsAsWritten() throws {
        _ = try SharedTestData.installedModel("pose_landmarker_full.task")
        let photo = try SharedTestData.file("media/pose_fullbody_yoga_warrior.jpg").path
        var printed: [(CGFloat, CGFloat)] = []

        let poseDetector = PoseDetector.poseDetector(options: PoseDetectorOptions())
        for pose in try poseDetector.results(in: VisionImage(image: try MPImage(contentsOfFile: photo))) {
            let leftAnkle = pose.landmark(ofType: .leftAnkle)
            if leftAnkle.inFrameLikelihood > 0.5 { printed.append((leftAnkle.position.x, leftAnkle.position.y)) }
        }

        // MediaPipe's reference: the left ankle at (0.701, 0.923) of the 1000 x 667 photo.
        XCTAssertEqual(printed.count, 1)
        XCTAssertEqual(Double(printed.first?.0 ?? 0) / 1000, 0.701, accuracy: 0.01)
        XCTAssertEqual(Double(printed.first?.1 ?? 0) / 667, 0.923, accuracy: 0.01)
    }
}
