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

            Examples:
              vision-tasks pose person.jpg
              vision-tasks pose --num-poses 2 --masks masks/ group.jpg
              vision-tasks pose squats.mp4 -o squats.jsonl --annotate squats.annotated.mp4
              vision-tasks pose --model pose_landmarker_heavy.task photos/
              ffmpeg -i cam.mp4 -f rawvideo -pix_fmt rgb24 - | vision-tasks pose --raw 640x480:rgb24 -
            """)

    @OptionGroup var media: MediaOptions
    @OptionGroup var pose: PoseTaskOptions

    func run() throws {
        var processor = TaskFrameProcessor.poses(
            modelPath: try pose.model.modelPath(default: .poseLandmarkerFullBundle), settings: pose,
            writesMasks: media.masks != nil)
        try processor.run(media: media)
    }
}
