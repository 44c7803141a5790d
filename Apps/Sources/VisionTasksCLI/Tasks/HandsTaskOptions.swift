import ArgumentParser
@_spi(Apps) import VisionTasks

/// The options `vision-tasks hands` and `vision-tasks gesture` share: the model and the hand
/// landmarker's settings (MediaPipe's names and defaults).
struct HandsTaskOptions: ParsableArguments {
    @OptionGroup var model: TaskModelOption

    @Option(parsing: .unconditional, help: "The most hands to find per image or frame.")
    var numHands: Int = 1

    @Option(parsing: .unconditional, help: "Palm detector score threshold (0...1).")
    var minHandDetectionConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "Hand presence threshold of the landmark model (0...1).")
    var minHandPresenceConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "Overlap above which a palm detection is taken for a hand already tracked in videos (0...1).")
    var minTrackingConfidence: Float = 0.5

    mutating func validate() throws {
        try TaskArgumentChecks.check(
            count: numHands, flag: "--num-hands",
            confidences: [
                "--min-hand-detection-confidence": minHandDetectionConfidence,
                "--min-hand-presence-confidence": minHandPresenceConfidence,
                "--min-tracking-confidence": minTrackingConfidence,
            ])
    }

    /// Sets the model, its thread count, the running mode and these settings on a hand landmarker's or gesture
    /// recognizer's options.
    func apply(to options: some CommonHandOptions, modelPath: String, mode: RunningMode) {
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.numThreads = model.threads
        options.runningMode = mode
        options.numHands = numHands
        options.minHandDetectionConfidence = minHandDetectionConfidence
        options.minHandPresenceConfidence = minHandPresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
    }
}
