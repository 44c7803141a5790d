import Foundation
import MediaIO
import TestSupport
import VisionTasks
import VisionTasksModelInstaller
import XCTest

/// The Swift example at the top of README.md, line for line (only the paths differ), so the
/// README's first example cannot rot.
final class ReadmeExampleTests: XCTestCase {
    func testTheREADMEGestureExampleRunsAsWritten() throws {
        // The README's model lines (the example must find its bundle in the model folder, not
        // fail with "Model asset not found: ./gesture_recognizer.task"). The installed folder is
        // the store's, so nothing downloads.
        _ = try SharedTestData.installedModel("gesture_recognizer.task")
        XCTAssertNil(try ModelInstaller().installIfNeeded([.gestureRecognizerBundle]), "the models are installed")
        let bundle = ModelStore().path(for: .gestureRecognizerBundle).path
        let photo = try SharedTestData.file("media/hand_thumb_up_left_01.jpg").path
        var printed: [String] = []

        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = bundle
        options.runningMode = .image
        options.numHands = 2
        let recognizer = try GestureRecognizer(options: options)

        let image = try MPImage(contentsOfFile: photo)
        let result = try recognizer.recognize(image: image)
        for (gestures, handedness) in zip(result.gestures, result.handedness) {
            printed.append("\(handedness[0].categoryName ?? "") \(gestures[0].categoryName ?? "")")
        }

        // MediaPipe's reference for this photo: one hand, "Right" (MediaPipe's handedness
        // assumes a mirrored selfie image), Thumb_Up.
        XCTAssertEqual(printed, ["Right Thumb_Up"])
    }
}
