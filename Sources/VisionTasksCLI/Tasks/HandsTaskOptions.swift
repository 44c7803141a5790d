import ArgumentParser
import Foundation
import VisionTasks

/// The options `vision-tasks hands` and `vision-tasks gesture` share: the model and the hand
/// landmarker's settings (MediaPipe's names and defaults).
struct HandsTaskOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The .task bundle: a path, or a file name in the model folder ($VISION_TASKS_MODELS or ~/.cache/vision-tasks/models).",
        valueName: "model"))
    var model: String?

    @Option(help: "The most hands to find per image or frame.")
    var numHands: Int = 1

    @Option(help: "Palm detector score threshold (0...1).")
    var minHandDetectionConfidence: Float = 0.5

    @Option(help: "Hand presence threshold of the landmark model (0...1).")
    var minHandPresenceConfidence: Float = 0.5

    @Option(help: "Overlap above which a palm detection is taken for a hand already tracked in videos (0...1).")
    var minTrackingConfidence: Float = 0.5

    @Option(help: "Threads each model runs on (default: all cores).")
    var threads: Int = BaseOptions.defaultNumThreads

    mutating func validate() throws {
        guard numHands >= 1 else { throw ValidationError("--num-hands must be at least 1") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        for (name, value) in [
            ("--min-hand-detection-confidence", minHandDetectionConfidence),
            ("--min-hand-presence-confidence", minHandPresenceConfidence),
            ("--min-tracking-confidence", minTrackingConfidence),
        ] where !(value >= 0 && value <= 1) {
            throw ValidationError("\(name) must be between 0 and 1")
        }
    }

    /// The model's path: `--model` (as given, or by name in the model folder), else the
    /// default bundle, installed first if missing.
    func modelPath(default file: ModelFile) throws -> String {
        guard let model else {
            return try ModelProvisioning.ensureInstalled([file]).path(for: file).path
        }
        if FileManager.default.fileExists(atPath: model) || model.contains("/") { return model }
        let installed = ModelStore().directory.appendingPathComponent(model).path
        return FileManager.default.fileExists(atPath: installed) ? installed : model
    }
}

/// Drawing of hands for `--annotate`.
enum HandsOverlay {
    static let connections = LandmarkConnections.hand

    /// A skeleton per hand, labelled with its handedness (and gesture).
    static func hands(
        _ landmarks: [[NormalizedLandmark]], labels: [String], imageWidth: Int, imageHeight: Int
    ) -> Overlay {
        var overlay = Overlay()
        for (i, hand) in landmarks.enumerated() {
            overlay.append(
                Overlay.skeleton(
                    normalizedPoints: hand.map { (x: $0.x, y: $0.y) }, connections: connections,
                    imageWidth: imageWidth, imageHeight: imageHeight, label: i < labels.count ? labels[i] : nil))
        }
        return overlay
    }

    /// "Left 0.97" for a handedness list.
    static func describe(_ categories: [ResultCategory]) -> String {
        guard let first = categories.first else { return "?" }
        return "\(first.categoryName ?? "?") \(String(format: "%.2f", first.score))"
    }
}
