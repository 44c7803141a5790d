import Foundation
import VisionTasks

extension TaskFrameProcessor where Task == GestureRecognizer {
    /// `vision-tasks gesture`: a `GestureRecognizer` with the command's hand settings and
    /// classifier options; records hold the `GestureRecognizerResult` under `gesture`.
    static func gestures(
        modelPath: String, settings: HandsTaskOptions, canned: ClassifierOptions?, custom: ClassifierOptions?
    ) -> Self {
        Self(
            resultKey: "gesture",
            makeTask: { mode in
                let options = GestureRecognizerOptions()
                settings.apply(to: options, modelPath: modelPath, mode: mode)
                options.cannedGesturesClassifierOptions = canned
                options.customGesturesClassifierOptions = custom
                return try GestureRecognizer(options: options)
            },
            process: { recognizer, image, mode, timestamp in
                let result =
                    mode == .image
                    ? try recognizer.recognize(image: image)
                    : try recognizer.recognize(videoFrame: image, timestampInMilliseconds: timestamp)
                let labels = gestureLabels(result)
                return FrameOutput(
                    record: result, summary: HandsOverlay.summary(labels),
                    overlay: HandsOverlay.hands(
                        result.landmarks, labels: labels, imageWidth: image.width, imageHeight: image.height))
            })
    }

    /// Per hand "Left: Thumb_Up 0.87" (the gesture only when the hand has one).
    static func gestureLabels(_ result: GestureRecognizerResult) -> [String] {
        result.handedness.indices.map { i in
            let handedness = result.handedness[i].first?.categoryName ?? "?"
            // Gestures line up with hands unless classifier options filtered a hand's out.
            guard result.gestures.count == result.handedness.count, let gesture = result.gestures[i].first else {
                return handedness
            }
            return "\(handedness): \(gesture.categoryName ?? "?") \(String(format: "%.2f", gesture.score))"
        }
    }
}
