// Live-stream mode with a delegate, as in MediaPipe's GestureRecognizer guide for iOS: frames
// are sent with `recognizeAsync` as a camera delivers them, and results arrive on the
// delegate. Here a video file stands in for the camera and is fed at its own frame rate;
// swap the loop for your camera's frame callback.
//
//   live-stream-gestures VIDEO [MODEL.task]
//
// A frame that arrives while the previous one is still being processed is dropped (and
// counted), so a slow machine skips frames instead of falling behind.
import Foundation
import MediaIO       // VideoReader (the stand-in camera)
import VisionTasks

/// Receives each processed frame's result on the recognizer's own serial queue.
final class GesturePrinter: GestureRecognizerLiveStreamDelegate {
    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, didFinishGestureRecognition result: GestureRecognizerResult?,
        timestampInMilliseconds: Int, error: (any Error)?
    ) {
        if let error {
            print("\(timestampInMilliseconds) ms: error \(error)")
            return
        }
        let gestures = result?.gestures.compactMap { $0.first?.categoryName } ?? []
        print("\(timestampInMilliseconds) ms: \(gestures.isEmpty ? "no hands" : gestures.joined(separator: ", "))")
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: live-stream-gestures VIDEO [MODEL.task]")
    exit(2)
}
let modelPath = arguments.count > 2 ? arguments[2] : ModelStore().path(for: .gestureRecognizerBundle).path

do {
    let printer = GesturePrinter()
    let options = GestureRecognizerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .liveStream
    options.gestureRecognizerLiveStreamDelegate = printer
    let recognizer = try GestureRecognizer(options: options)

    let camera = try VideoReader(path: arguments[1])
    let start = Date()
    while let frame = try camera.nextFrame() {
        // Wait for the moment this frame would leave a camera.
        let due = Double(frame.timestampInMilliseconds) / 1000 - Date().timeIntervalSince(start)
        if due > 0 { Thread.sleep(forTimeInterval: due) }
        try recognizer.recognizeAsync(
            image: MPImage(pixelBuffer: frame.image), timestampInMilliseconds: frame.timestampInMilliseconds)
    }
    recognizer.waitUntilIdle()
    print("dropped \(recognizer.droppedFrameCount) frame(s) that arrived while the previous one was in work")
} catch {
    print("error: \(error)")
    exit(1)
}
