import ArgumentParser
import VisionTasks

/// The options of `vision-tasks pose`: the model and the pose landmarker's settings
/// (MediaPipe's names and defaults).
struct PoseTaskOptions: ParsableArguments {
    @OptionGroup var model: TaskModelOption

    @Option(parsing: .unconditional, help: "The most poses to find per image or frame.")
    var numPoses: Int = 1

    @Option(parsing: .unconditional, help: "Pose detector score threshold (0...1).")
    var minPoseDetectionConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "Pose presence threshold of the landmark model (0...1).")
    var minPosePresenceConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "Overlap above which a new detection replaces a tracked pose in videos (0...1).")
    var minTrackingConfidence: Float = 0.5

    @Flag(help: "Compute segmentation masks and include their summaries in the results (implied by --masks).")
    var segmentationMasks = false

    mutating func validate() throws {
        try TaskArgumentChecks.check(
            count: numPoses, flag: "--num-poses",
            confidences: [
                "--min-pose-detection-confidence": minPoseDetectionConfidence,
                "--min-pose-presence-confidence": minPosePresenceConfidence,
                "--min-tracking-confidence": minTrackingConfidence,
            ])
    }

    /// Sets the model, its thread count, the running mode and these settings on a pose landmarker's options;
    /// masks are computed with `--segmentation-masks` or when `writesMasks` (`--masks`).
    func apply(to options: PoseLandmarkerOptions, modelPath: String, mode: RunningMode, writesMasks: Bool) {
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.numThreads = model.threads
        options.runningMode = mode
        options.numPoses = numPoses
        options.minPoseDetectionConfidence = minPoseDetectionConfidence
        options.minPosePresenceConfidence = minPosePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.outputSegmentationMasks = segmentationMasks || writesMasks
    }
}
