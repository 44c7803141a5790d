import ArgumentParser
import Foundation
import VisionTasks

/// `vision-tasks hands`: hand landmarks and handedness in images and videos.
struct HandsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hands",
        abstract: "Find hand landmarks (21 per hand) and handedness in images and videos.",
        discussion: """
            Images run in image mode; videos in video mode (hands tracked from frame to frame, as \
            MediaPipe does: the palm detector runs only while fewer than --num-hands hands are \
            tracked). Results are JSON in the form of MediaPipe's reference files: per hand, \
            `handedness` (Left/Right as if the image were mirrored, as MediaPipe reports it), \
            `landmarks` (normalised x, y, z) and `worldLandmarks` (metres).

            The model defaults to hand_landmarker.task in the model folder (installed on first \
            use); Google's official hand_landmarker.task works too.

            Examples:
              vision-tasks hands hand.jpg
              vision-tasks hands --num-hands 2 photos/ -o hands.jsonl
              vision-tasks hands clip.mp4 --annotate clip.annotated.mp4
              vision-tasks hands --model hand_landmarker_lite.task hand.jpg
              ffmpeg -i cam.mp4 -f rawvideo -pix_fmt rgb24 - \\
                | vision-tasks hands --raw 640x480:rgb24 -
              vision-tasks hands --api vision hand.jpg   # Vision's hand pose request
            """)

    @OptionGroup var media: MediaOptions
    @OptionGroup var hands: HandsTaskOptions

    func validate() throws {
        if media.masks != nil { throw ValidationError("--masks is for pose: hands have no segmentation masks") }
    }

    @Option(help: "Print the results as this API gives them: mediapipe (HandLandmarker) or vision (Apple Vision's hand pose request: chirality, joints normalised with the origin at the lower left, --num-hands as maximumHandCount; docs/apple-vision.md). vision ignores the confidence thresholds.")
    var api: HandsAPIOption = .mediapipe

    func run() throws {
        if api == .vision {
            var processor = TaskFrameProcessor.visionHands(
                modelPath: try hands.model.modelPath(default: .handLandmarkerBundle), maximumHandCount: hands.numHands)
            return try processor.run(media: media)
        }
        var processor = TaskFrameProcessor.hands(
            modelPath: try hands.model.modelPath(default: .handLandmarkerBundle), settings: hands)
        try processor.run(media: media)
    }
}
