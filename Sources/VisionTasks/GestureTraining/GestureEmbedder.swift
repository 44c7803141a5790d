import CKernels
import Foundation

/// Turns hands into gesture embeddings, the input a gesture classifier is trained on: the hand
/// landmarker of a gesture recognizer bundle finds one hand (with Model Maker's settings, see
/// `GestureEmbedderOptions`), and the bundle's `gesture_embedder.tflite` embeds it exactly as
/// `GestureRecognizer` does before it classifies.
///
/// ```swift
/// import MediaIO   // MPImage(contentsOfFile:)
///
/// let embedder = try GestureEmbedder(modelPath: "gesture_recognizer.task")
/// if let embedding = try embedder.embedding(of: try MPImage(contentsOfFile: "wave.jpg")) {
///     print(embedding.count)   // 128
/// }
/// ```
///
/// Images are independent (image mode). Calls may come from any thread; they are processed
/// one at a time.
public final class GestureEmbedder: @unchecked Sendable {
    /// The number of values in an embedding (128 for MediaPipe's embedder).
    public let embeddingSize: Int
    /// Which models and settings made the embeddings (datasets record it, so that embeddings
    /// of different models are not mixed, and a classifier is exported with its models).
    let identity: GestureEmbedderIdentity

    private let lock = NSLock()
    private let hands: HandLandmarkerGraph
    private let embedder: GestureEmbedderModel

    /// An embedder on the bundle and settings of `options`. Throws `TasksError` for a missing
    /// or unusable bundle (`.notFound` when it has no gesture embedder: a hand landmarker
    /// bundle alone is not enough) and confidences outside 0...1.
    public init(options: GestureEmbedderOptions) throws {
        let configuration = HandLandmarkerGraph.Configuration(
            numHands: 1, minHandDetectionConfidence: options.minHandDetectionConfidence,
            minHandPresenceConfidence: options.minHandPresenceConfidence, minTrackingConfidence: 1)
        try configuration.validate()
        let setup = try VisionTaskSetup(
            baseOptions: options.baseOptions.copy(), runningMode: .image, hasLiveStreamDelegate: false)
        hands = try HandLandmarkerGraph(asset: setup.asset, configuration: configuration, threadCount: setup.threadCount)
        embedder = try GestureEmbedderModel(asset: setup.asset)
        embeddingSize = embedder.embeddingSize
        identity = GestureEmbedderIdentity(
            models: try GestureEmbedderIdentity.fingerprint(of: setup.asset),
            minHandDetectionConfidence: options.minHandDetectionConfidence,
            minHandPresenceConfidence: options.minHandPresenceConfidence)
    }

    /// An embedder on the bundle at `modelPath` with Model Maker's settings.
    public convenience init(modelPath: String) throws {
        try self.init(options: GestureEmbedderOptions(modelPath: modelPath))
    }

    /// The embedding of the hand in `image`, or nil when no hand is found (Model Maker drops
    /// such images). With several hands, the one the palm detector is surest of.
    public func embedding(of image: MPImage) throws -> [Float]? {
        try lock.withLock {
            try ImagePixels.withUprightPixels(of: image) { pixels in
                guard let hand = try hands.process(pixels, tracksAcrossFrames: false).first else { return nil }
                return try embedder.withEmbedding(
                    landmarks: hand.landmarks, worldLandmarks: hand.worldLandmarks, handedness: [hand.handedness],
                    imageWidth: pixels.width, imageHeight: pixels.height) { Array($0) }
            }
        }
    }

    /// The embedding of a hand another task found (`HandLandmarkerResult` or
    /// `GestureRecognizerResult`: one hand's `landmarks`, `worldLandmarks` and `handedness`) in
    /// an upright image of `imageWidth` × `imageHeight` pixels. Throws
    /// `TasksError.invalidArgument` for a hand without 21 landmarks of each kind or without a
    /// handedness category scoring 0.5 or more.
    public func embedding(
        landmarks: [NormalizedLandmark], worldLandmarks: [Landmark], handedness: [ResultCategory],
        imageWidth: Int, imageHeight: Int
    ) throws -> [Float] {
        let count = HandLandmarksDetector.landmarkCount
        guard landmarks.count == count, worldLandmarks.count == count else {
            throw TasksError.invalidArgument(
                "A hand has \(count) landmarks and \(count) world landmarks, got \(landmarks.count) and \(worldLandmarks.count).")
        }
        guard handedness.contains(where: { $0.score >= 0.5 && $0.score <= 1 }) else {
            throw TasksError.invalidArgument(
                "The hand's handedness needs a category scoring from 0.5 to 1, got \(handedness.map(\.score)).")
        }
        return try lock.withLock {
            do {
                return try embedder.withEmbedding(
                    landmarks: landmarks, worldLandmarks: worldLandmarks, handedness: handedness,
                    imageWidth: imageWidth, imageHeight: imageHeight) { Array($0) }
            } catch TasksError.internalError(let message) {
                throw TasksError.invalidArgument(message)
            }
        }
    }
}

/// Which models made a set of embeddings, and with which hand detection settings.
struct GestureEmbedderIdentity: Sendable, Equatable, Codable {
    /// The CRC-32 and size of the hand detector, hand landmarks and gesture embedder models: the
    /// same three models give the same embeddings. It identifies models, it does not secure them.
    var models: String
    var minHandDetectionConfidence: Float
    var minHandPresenceConfidence: Float

    /// The three models' fingerprint in a gesture recognizer bundle.
    static func fingerprint(of asset: ModelAsset) throws -> String {
        let members = [HandLandmarkerGraph.detectorMember, HandLandmarkerGraph.landmarksMember, GestureEmbedderModel.member]
        return try members.map { name -> String in
            let bytes: [UInt8]
            do {
                bytes = try asset.bundle.member(named: name)
            } catch {
                throw TasksError.notFound("\(asset.bundle.name) has no \(name): \(error)")
            }
            let crc = bytes.withUnsafeBytes { ck_crc32_update(0, $0.baseAddress, $0.count) }
            return "\(name):\(String(crc, radix: 16)):\(bytes.count)"
        }.joined(separator: ",")
    }
}
