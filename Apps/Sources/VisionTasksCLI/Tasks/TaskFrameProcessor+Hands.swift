import TaskRunner
import VisionTasks

extension TaskFrameProcessor where Task == HandLandmarker {
    /// `vision-tasks hands`: a `HandLandmarker` with the command's settings; records hold
    /// the `HandLandmarkerResult` under `hands`.
    static func hands(modelPath: String, settings: HandsTaskOptions) -> Self {
        let options = { (mode: RunningMode) -> HandLandmarkerOptions in
            let options = HandLandmarkerOptions()
            settings.apply(to: options, modelPath: modelPath, mode: mode)
            return options
        }
        return Self(
            resultKey: Task.resultKey,
            makeTask: { mode in try HandLandmarker(options: options(mode)) },
            process: { landmarker, image, mode, timestamp in
                let result = try landmarker.run(image, mode: mode, timestampInMilliseconds: timestamp)
                return handsOutput(result, image: image)
            },
            live: LiveHooks(
                make: { deliver in
                    let delegate = liveRelay(deliver, present: { (result: HandLandmarkerResult, image) in handsOutput(result, image: image) })
                    let liveOptions = options(.liveStream)
                    liveOptions.handLandmarkerLiveStreamDelegate = delegate
                    return (try HandLandmarker(options: liveOptions), delegate)
                },
                submit: { landmarker, image, timestamp in try landmarker.detectAsync(image: image, timestampInMilliseconds: timestamp) },
                droppedFrameCount: { $0.droppedFrameCount },
                waitUntilIdle: { $0.waitUntilIdle() }))
    }

    /// A result as a record, a summary line and the drawn hands.
    static func handsOutput(_ result: HandLandmarkerResult, image: MPImage) -> FrameOutput {
        let labels = result.handedness.map(HandsOverlay.describe)
        return FrameOutput(
            record: result, summary: HandsOverlay.summary(labels),
            overlay: HandsOverlay.hands(result.landmarks, labels: labels, imageWidth: image.width, imageHeight: image.height))
    }
}
