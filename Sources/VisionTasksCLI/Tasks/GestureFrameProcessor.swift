import Foundation
import VisionTasks

/// Runs a `GestureRecognizer` for `MediaDriver`: one image-mode recognizer shared by all
/// images, a fresh video-mode recognizer for each video or raw stream.
struct GestureFrameProcessor: FrameProcessor {
    let modelPath: String
    let settings: HandsTaskOptions
    let canned: ClassifierOptions?
    let custom: ClassifierOptions?

    private var imageRecognizer: GestureRecognizer?
    private var current: GestureRecognizer?
    private var mode = RunningMode.image

    init(modelPath: String, settings: HandsTaskOptions, canned: ClassifierOptions?, custom: ClassifierOptions?) {
        self.modelPath = modelPath
        self.settings = settings
        self.canned = canned
        self.custom = custom
    }

    var resultKey: String { "gesture" }

    /// The recognizer for `mode`: the shared image-mode one, or a new video-mode one.
    mutating func recognizer(for mode: RunningMode) throws -> GestureRecognizer {
        if mode == .image, let imageRecognizer { return imageRecognizer }
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.numThreads = settings.threads
        options.runningMode = mode
        options.numHands = settings.numHands
        options.minHandDetectionConfidence = settings.minHandDetectionConfidence
        options.minHandPresenceConfidence = settings.minHandPresenceConfidence
        options.minTrackingConfidence = settings.minTrackingConfidence
        options.cannedGesturesClassifierOptions = canned
        options.customGesturesClassifierOptions = custom
        let recognizer = try GestureRecognizer(options: options)
        if mode == .image { imageRecognizer = recognizer }
        return recognizer
    }

    mutating func begin(input: MediaInput, mode: RunningMode) throws {
        current = try recognizer(for: mode)
        self.mode = mode
    }

    mutating func process(image: MPImage, timestampInMilliseconds: Int, frameIndex: Int) throws -> FrameOutput {
        let recognizer = try current ?? recognizer(for: .image)
        let result =
            mode == .image
            ? try recognizer.recognize(image: image)
            : try recognizer.recognize(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds)
        let labels = Self.labels(result)
        return FrameOutput(
            record: result, summary: HandsFrameProcessor.summary(labels),
            overlay: HandsOverlay.hands(
                result.landmarks, labels: labels, imageWidth: image.width, imageHeight: image.height))
    }

    /// Per hand "Left: Thumb_Up 0.87" (the gesture only when the hand has one).
    static func labels(_ result: GestureRecognizerResult) -> [String] {
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
