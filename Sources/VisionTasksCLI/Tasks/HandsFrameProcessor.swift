import Foundation
import VisionTasks

/// Runs a `HandLandmarker` for `MediaDriver`: one image-mode landmarker shared by all images,
/// a fresh video-mode landmarker for each video or raw stream.
struct HandsFrameProcessor: FrameProcessor {
    let modelPath: String
    let settings: HandsTaskOptions

    private var imageLandmarker: HandLandmarker?
    private var current: HandLandmarker?
    private var mode = RunningMode.image

    init(modelPath: String, settings: HandsTaskOptions) {
        self.modelPath = modelPath
        self.settings = settings
    }

    var resultKey: String { "hands" }

    /// The landmarker for `mode`: the shared image-mode one, or a new video-mode one.
    mutating func landmarker(for mode: RunningMode) throws -> HandLandmarker {
        if mode == .image, let imageLandmarker { return imageLandmarker }
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.numThreads = settings.threads
        options.runningMode = mode
        options.numHands = settings.numHands
        options.minHandDetectionConfidence = settings.minHandDetectionConfidence
        options.minHandPresenceConfidence = settings.minHandPresenceConfidence
        options.minTrackingConfidence = settings.minTrackingConfidence
        let landmarker = try HandLandmarker(options: options)
        if mode == .image { imageLandmarker = landmarker }
        return landmarker
    }

    mutating func begin(input: MediaInput, mode: RunningMode) throws {
        current = try landmarker(for: mode)
        self.mode = mode
    }

    mutating func process(image: MPImage, timestampInMilliseconds: Int, frameIndex: Int) throws -> FrameOutput {
        let landmarker = try current ?? landmarker(for: .image)
        let result =
            mode == .image
            ? try landmarker.detect(image: image)
            : try landmarker.detect(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds)
        let labels = result.handedness.map(HandsOverlay.describe)
        return FrameOutput(
            record: result, summary: Self.summary(labels),
            overlay: HandsOverlay.hands(
                result.landmarks, labels: labels, imageWidth: image.width, imageHeight: image.height))
    }

    /// "no hand", "1 hand: Left 0.97", "2 hands: Left 0.97, Right 0.88".
    static func summary(_ labels: [String]) -> String {
        switch labels.count {
        case 0: return "no hand"
        case 1: return "1 hand: \(labels[0])"
        default: return "\(labels.count) hands: " + labels.joined(separator: ", ")
        }
    }
}
