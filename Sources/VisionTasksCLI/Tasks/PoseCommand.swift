import ArgumentParser
import Foundation
import VisionTasks

/// `vision-tasks pose`: body pose landmarks (and segmentation masks) in images and videos.
struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Find body pose landmarks (33 per person) and segmentation masks in images and videos.",
        discussion: """
            Images run in image mode; videos in video mode (poses tracked from frame to frame and,
            with --num-poses 1, smoothed over time, as MediaPipe does). Results are JSON in the
            form of MediaPipe's reference files: per pose, `landmarks` (normalised x, y, z with
            visibility and presence) and `worldLandmarks` (metres); with masks, `segmentationMasks`
            summarised as width, height, mean and a 16x16 grid of cell means.

            The model defaults to pose_landmarker_full.task in the model folder (installed on first
            use). Google's official pose_landmarker_lite.task and pose_landmarker_heavy.task work
            too: pass them with --model.

            Examples:
              vision-tasks pose person.jpg
              vision-tasks pose --num-poses 2 --masks masks/ group.jpg
              vision-tasks pose squats.mp4 -o squats.jsonl --annotate squats.annotated.mp4
              vision-tasks pose --model pose_landmarker_heavy.task photos/
              ffmpeg -i cam.mp4 -f rawvideo -pix_fmt rgb24 - | vision-tasks pose --raw 640x480:rgb24 -
            """)

    @OptionGroup var media: MediaOptions

    @Option(help: ArgumentHelp(
        "The pose landmarker .task bundle (default: pose_landmarker_full.task in $VISION_TASKS_MODELS or ~/.cache/vision-tasks/models).",
        valueName: "path"))
    var model: String?

    @Option(help: "The most poses to find per image or frame.")
    var numPoses: Int = 1

    @Option(help: "Pose detector score threshold (0...1).")
    var minPoseDetectionConfidence: Float = 0.5

    @Option(help: "Pose presence threshold of the landmark model (0...1).")
    var minPosePresenceConfidence: Float = 0.5

    @Option(help: "Overlap above which a new detection replaces a tracked pose in videos (0...1).")
    var minTrackingConfidence: Float = 0.5

    @Flag(help: "Compute segmentation masks and include their summaries in the results (implied by --masks).")
    var segmentationMasks = false

    @Option(help: "Threads each model runs on (default: all cores).")
    var threads: Int = BaseOptions.defaultNumThreads

    mutating func validate() throws {
        guard numPoses >= 1 else { throw ValidationError("--num-poses must be at least 1") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        for (name, value) in [
            ("--min-pose-detection-confidence", minPoseDetectionConfidence),
            ("--min-pose-presence-confidence", minPosePresenceConfidence),
            ("--min-tracking-confidence", minTrackingConfidence),
        ] where !(value >= 0 && value <= 1) {
            throw ValidationError("\(name) must be between 0 and 1")
        }
    }

    func run() throws {
        let modelPath: String
        if let model {
            modelPath = model
        } else {
            let store = try ModelProvisioning.ensureInstalled([.poseLandmarkerFullBundle])
            modelPath = store.path(for: .poseLandmarkerFullBundle).path
        }
        var processor = PoseFrameProcessor(
            modelPath: modelPath, numPoses: numPoses,
            minPoseDetectionConfidence: minPoseDetectionConfidence,
            minPosePresenceConfidence: minPosePresenceConfidence,
            minTrackingConfidence: minTrackingConfidence,
            outputSegmentationMasks: segmentationMasks || media.masks != nil, threads: threads)
        // Fail early (and once) on a bad model instead of once per input.
        _ = try processor.landmarker(for: .image)
        guard try MediaDriver(options: media).run(&processor) else { throw ExitCode(1) }
    }
}
