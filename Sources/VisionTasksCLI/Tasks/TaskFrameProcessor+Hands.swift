import VisionTasks

extension TaskFrameProcessor where Task == HandLandmarker {
    /// `vision-tasks hands`: a `HandLandmarker` with the command's settings; records hold
    /// the `HandLandmarkerResult` under `hands`.
    static func hands(modelPath: String, settings: HandsTaskOptions) -> Self {
        Self(
            resultKey: "hands",
            makeTask: { mode in
                let options = HandLandmarkerOptions()
                settings.apply(to: options, modelPath: modelPath, mode: mode)
                return try HandLandmarker(options: options)
            },
            process: { landmarker, image, mode, timestamp in
                let result =
                    mode == .image
                    ? try landmarker.detect(image: image)
                    : try landmarker.detect(videoFrame: image, timestampInMilliseconds: timestamp)
                let labels = result.handedness.map(HandsOverlay.describe)
                return FrameOutput(
                    record: result, summary: HandsOverlay.summary(labels),
                    overlay: HandsOverlay.hands(
                        result.landmarks, labels: labels, imageWidth: image.width, imageHeight: image.height))
            })
    }
}
