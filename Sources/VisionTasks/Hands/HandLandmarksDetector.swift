import Foundation
import LiteInterpreter

/// The hand landmarks stage for one region (MediaPipe's SingleHandLandmarksDetectorGraph,
/// docs/pipelines.md §3.2): crop the region into the landmark model, gate on hand presence,
/// decode and project the 21 landmarks, rotate the world landmarks, read the handedness and
/// compute the region for the next frame.
///
/// Owns its interpreter; use it from one thread at a time.
final class HandLandmarksDetector {
    /// What the model found in one region.
    struct Hand {
        /// The 21 landmarks in normalised image coordinates.
        var landmarks: [NormalizedLandmark]
        /// The 21 landmarks in metres, rotated by the region's rotation.
        var worldLandmarks: [Landmark]
        /// "Right" (index 0) or "Left" (index 1) with its score, MediaPipe's top-1 handedness.
        var handedness: ResultCategory
        /// The model's hand presence score.
        var presence: Float
        /// The region to crop in the next frame (video and live stream).
        var nextFrameRegion: NormalizedRect?
        /// The tracker's identifier of the region the hand was found in (video and live
        /// stream; nil in image mode).
        var trackingID: Int64? = nil
    }

    static let landmarkCount = 21
    /// `kLandmarksNormalizeZ` of hand_landmarks_detector_graph.cc.
    static let normalizeZ: Float = 0.4

    private let interpreter: Interpreter
    private let tensorOptions: ImageToTensorOptions
    private let minPresence: Float

    /// Checks that `model` has the hand landmark model's input ([1, H, W, 3]) and its four
    /// outputs in MediaPipe's order: landmarks (63), presence (1), handedness (1), world
    /// landmarks (63).
    init(model: Model, minPresence: Float, pool: WorkerPool) throws {
        let input = model.inputs.first?.shape ?? []
        guard model.inputs.count == 1, input.count == 4, input[0] == 1, input[3] == 3,
            input[1] > 0, input[2] > 0, input[1] <= 4096, input[2] <= 4096
        else {
            throw TasksError.invalidArgument(
                "Hand landmarks model: expected one input of shape [1, height, width, 3], got \(model.inputs.map(\.shape)).")
        }
        let n = Self.landmarkCount * 3
        let sizes = model.outputs.map(\.elementCount)
        guard sizes.count == 4, sizes[0] == n, sizes[1] == 1, sizes[2] == 1, sizes[3] == n else {
            throw TasksError.invalidArgument(
                "Hand landmarks model: expected 4 outputs of \(n), 1, 1 and \(n) values (landmarks, presence, handedness, world landmarks), got \(model.outputs.map(\.shape)).")
        }
        var options = ImageToTensorOptions.handLandmarks.normalized(by: model)
        options.outputHeight = input[1]
        options.outputWidth = input[2]
        tensorOptions = options
        self.minPresence = minPresence
        do {
            interpreter = try Interpreter(model: model, sharing: pool)
        } catch {
            throw TasksError.invalidArgument("Hand landmarks model cannot run: \(error)")
        }
    }

    /// Runs the model on `region` of `image`; nil when the hand presence score is not above
    /// `minHandPresenceConfidence` (MediaPipe's ThresholdingCalculator, compared in double).
    func detect(_ image: ImagePixels, region: NormalizedRect) throws -> Hand? {
        try interpreter.withUnsafeMutableInputBuffer(at: 0) { input in
            _ = try ImageToTensor.convert(image, region: region, options: tensorOptions, into: input, pool: interpreter.workerPool)
        }
        try interpreter.invoke()
        let presence = try interpreter.withUnsafeOutputBuffer(at: 1) { $0[0] }
        guard Double(presence) > Double(minPresence) else { return nil }
        let rightScore = try interpreter.withUnsafeOutputBuffer(at: 2) { $0[0] }

        let width = Float(tensorOptions.outputWidth), height = Float(tensorOptions.outputHeight)
        let normalized = try interpreter.withUnsafeOutputBuffer(at: 0) { raw in
            (0..<Self.landmarkCount).map { i in
                NormalizedLandmark(
                    x: raw[3 * i] / width, y: raw[3 * i + 1] / height,
                    z: raw[3 * i + 2] / width / Self.normalizeZ)
            }
        }
        // Letterbox padding is zero for this crop, so its removal is the identity.
        let landmarks = LandmarkProjection.project(normalized, from: region)
        let world = try interpreter.withUnsafeOutputBuffer(at: 3) { raw in
            (0..<Self.landmarkCount).map { i in
                Landmark(x: raw[3 * i], y: raw[3 * i + 1], z: raw[3 * i + 2])
            }
        }
        let worldLandmarks = LandmarkProjection.rotateWorld(world, by: region)
        let next = LandmarksToRect.hand(landmarks, imageWidth: image.width, imageHeight: image.height).map {
            RectTransformation.handLandmarksToNextFrame.apply(
                to: $0, imageWidth: image.width, imageHeight: image.height)
        }
        return Hand(
            landmarks: landmarks, worldLandmarks: worldLandmarks,
            handedness: Self.handedness(rightScore: rightScore), presence: presence,
            nextFrameRegion: next)
    }

    /// The binary handedness classification with top 1 (TensorsToClassificationCalculator):
    /// "Right" scores `s`, "Left" `1. − s` (double, stored as float); Left is reported only
    /// when strictly higher (partial sort keeps the first of equals).
    static func handedness(rightScore s: Float) -> ResultCategory {
        let left = Float(1.0 - Double(s))
        if left > s {
            return ResultCategory(index: 1, score: left, categoryName: "Left", displayName: "Left")
        }
        return ResultCategory(index: 0, score: s, categoryName: "Right", displayName: "Right")
    }
}
