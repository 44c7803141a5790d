import Foundation
import TaskRunner
import VisionTasks

extension TaskFrameProcessor where Task == GestureRecognizer {
    /// `vision-tasks gesture`: a `GestureRecognizer` with the command's hand settings and
    /// classifier options; records hold the `GestureRecognizerResult` under `gesture`.
    static func gestures(
        modelPath: String, settings: HandsTaskOptions, canned: ClassifierOptions?, custom: ClassifierOptions?
    ) -> Self {
        let options = { (mode: RunningMode) -> GestureRecognizerOptions in
            let options = GestureRecognizerOptions()
            settings.apply(to: options, modelPath: modelPath, mode: mode)
            options.cannedGesturesClassifierOptions = canned
            options.customGesturesClassifierOptions = custom
            return options
        }
        return Self(
            resultKey: Task.resultKey,
            makeTask: { mode in try GestureRecognizer(options: options(mode)) },
            process: { recognizer, image, mode, timestamp in
                let result = try recognizer.run(image, mode: mode, timestampInMilliseconds: timestamp)
                return gestureOutput(result, image: image)
            },
            live: LiveHooks(
                make: { deliver in
                    let delegate = liveRelay(deliver, present: { (result: GestureRecognizerResult, image) in gestureOutput(result, image: image) })
                    let liveOptions = options(.liveStream)
                    liveOptions.gestureRecognizerLiveStreamDelegate = delegate
                    return (try GestureRecognizer(options: liveOptions), delegate)
                },
                submit: { recognizer, image, timestamp in try recognizer.recognizeAsync(image: image, timestampInMilliseconds: timestamp) },
                droppedFrameCount: { $0.droppedFrameCount },
                waitUntilIdle: { $0.waitUntilIdle() }))
    }

    /// A result as a record, a summary line and the drawn hands.
    static func gestureOutput(_ result: GestureRecognizerResult, image: MPImage) -> FrameOutput {
        let labels = gestureLabels(result)
        return FrameOutput(
            record: result, summary: HandsOverlay.summary(labels),
            overlay: HandsOverlay.hands(result.landmarks, labels: labels, imageWidth: image.width, imageHeight: image.height))
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
