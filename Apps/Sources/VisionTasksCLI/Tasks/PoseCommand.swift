import ArgumentParser
import Foundation
import VisionTasks

/// `vision-tasks pose`: body pose landmarks (and segmentation masks) in images and videos.
struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Find body pose landmarks (33 per person) and segmentation masks in images and videos.",
        discussion: """
            Images run in image mode; videos in video mode (poses tracked from frame to frame and, \
            with --num-poses 1, smoothed over time, as MediaPipe does). Results are JSON in the \
            form of MediaPipe's reference files: per pose, `landmarks` (normalised x, y, z with \
            visibility and presence) and `worldLandmarks` (metres); with masks, `segmentationMasks` \
            summarised as width, height, mean and a 16x16 grid of cell means.

            The model defaults to pose_landmarker_full.task in the model folder (installed on first \
            use). Google's official pose_landmarker_lite.task and pose_landmarker_heavy.task work \
            too: pass them with --model.

            ML Kit's pose samples CSV (pose classification and repetition counting) from folders of \
            example photos and videos, one folder per class: `vision-tasks pose samples FOLDER -o \
            samples.csv` (see `vision-tasks pose samples --help`).

            Examples:
              vision-tasks pose person.jpg
              vision-tasks pose --num-poses 2 --masks masks/ group.jpg
              vision-tasks pose squats.mp4 -o squats.jsonl --annotate squats.annotated.mp4
              vision-tasks pose --model pose_landmarker_heavy.task photos/
              ffmpeg -i cam.mp4 -f rawvideo -pix_fmt rgb24 - \\
                | vision-tasks pose --raw 640x480:rgb24 -
              vision-tasks pose --api mlkit person.jpg    # ML Kit's PoseDetector
              vision-tasks pose --api vision person.jpg   # Vision's body pose request
              vision-tasks pose samples workout/ -o samples.csv
              vision-tasks pose --classify samples.csv --count squats_down squats.mp4
            """)

    @OptionGroup var media: MediaOptions
    @OptionGroup var pose: PoseTaskOptions
    @OptionGroup(title: "Pose classification and repetition counting") var classification: PoseClassificationOptions

    @Option(help: "Print the results as this API gives them: mediapipe (PoseLandmarker), mlkit (ML Kit's PoseDetector: one person, pixels; docs/mlkit.md) or vision (Apple Vision's body pose request, 19 joints, up to --num-poses people; docs/apple-vision.md). mlkit and vision ignore the confidence thresholds and refuse --masks.")
    var api: PoseAPIOption = .mediapipe

    mutating func validate() throws {
        // Refused rather than accepted and ignored (which would create an empty folder): the
        // other APIs give no masks.
        if api != .mediapipe, media.masks != nil {
            throw ValidationError(
                "--masks is for --api mediapipe: ML Kit's PoseDetector and Vision's body pose request give no segmentation masks")
        }
        if api != .mediapipe, classification.samplesPath != nil {
            throw ValidationError("--classify is for --api mediapipe (the ML Kit API's own PoseClassifierProcessor is in VisionTasksMLKit)")
        }
    }

    func run() throws {
        switch api {
        case .mediapipe: break
        case .mlkit:
            var processor = TaskFrameProcessor.mlkitPoses(modelPath: try pose.model.modelPath(default: .poseLandmarkerFullBundle))
            return try processor.run(media: media)
        case .vision:
            var processor = TaskFrameProcessor.visionBodies(
                modelPath: try pose.model.modelPath(default: .poseLandmarkerFullBundle), maximumBodyCount: pose.numPoses)
            return try processor.run(media: media)
        }
        let session = try classification.makeTracker().map(PoseRepetitionSession.init)
        var processor = TaskFrameProcessor.poses(
            modelPath: try pose.model.modelPath(default: .poseLandmarkerFullBundle), settings: pose,
            writesMasks: media.masks != nil, classification: session)
        try processor.run(media: media)
    }
}
