import Foundation
import MediaIO
import TestSupport
import VisionTasks
import VisionTasksAppleVision
import XCTest

/// README.md's Vision example, line for line (only the frame's source differs), so it cannot rot.
final class ReadmeVisionExampleTests: XCTestCase {
    func testTheREADMEVisionExampleRunsAsWritten() throws {
        _ = try SharedTestData.installedModel("hand_landmarker.task")
        let frame = try MPImage(contentsOfFile: try SharedTestData.file("media/hand_victory_right_01.jpg").path).pixelBuffer
        var printed: [String] = []

        let request = VNDetectHumanHandPoseRequest()
        try VNImageRequestHandler(cvPixelBuffer: frame, orientation: .up, options: [:]).perform([request])
        if let hand = request.results?.first, let tip = try hand.recognizedPoints(.thumb)[.thumbTip], tip.confidence > 0.3 {
            printed.append("\(hand.chirality) \(String(format: "%.2f %.2f", tip.location.x, 1 - tip.location.y))")
        }

        // MediaPipe's reference: a right hand ("Right"), thumb tip at (0.29, 0.74).
        XCTAssertEqual(printed, ["right 0.29 0.74"])
    }
}
