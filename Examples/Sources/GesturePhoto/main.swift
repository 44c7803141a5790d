// Gesture recognition on a photo, as in MediaPipe's GestureRecognizer guide for iOS (image mode).
//
//   gesture-photo PHOTO [MODEL.task]
//
// MODEL.task defaults to the installed gesture_recognizer.task (`vision-tasks models install`).
import Foundation
import MediaIO       // MPImage(contentsOfFile:): decodes JPEG and PNG
import VisionTasks   // instead of MediaPipeTasksVision

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: gesture-photo PHOTO [MODEL.task]")
    exit(2)
}
let modelPath = arguments.count > 2 ? arguments[2] : ModelStore().path(for: .gestureRecognizerBundle).path

do {
    let options = GestureRecognizerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .image
    options.numHands = 2
    let recognizer = try GestureRecognizer(options: options)

    let image = try MPImage(contentsOfFile: arguments[1])
    let result = try recognizer.recognize(image: image)
    if result.gestures.isEmpty { print("no hands") }
    for (hand, (gestures, handedness)) in zip(result.gestures, result.handedness).enumerated() {
        let wrist = result.landmarks[hand][HandLandmark.wrist.rawValue]
        print(
            "hand \(hand): \(handedness[0].categoryName ?? "?"), gesture \(gestures[0].categoryName ?? "?")"
                + String(format: " (%.2f), wrist at x %.3f y %.3f", gestures[0].score, wrist.x, wrist.y))
    }
} catch {
    print("error: \(error)")
    exit(1)
}
