import Foundation
import LiteInterpreter
import MediaIO
import TestSupport
@_spi(Apps) @testable import VisionTasks
import XCTest

/// MediaPipe loads the bundles VisionTasks trains: MediaPipe 1.2.2's Python GestureRecognizer on
/// a bundle trained here gives, image by image, the gestures `GestureRecognizer` gives on the same
/// pixels; on MediaPipe's own hands (its landmarks, world landmarks and handedness) our embedder
/// and classifiers give MediaPipe's gesture and score within 1e-5; and LiteRT 2.3.0 runs the
/// custom classifier to our interpreter's scores within 1e-5. (End to end, scores differ more:
/// the hand landmarks that feed the embedder differ in the last digits between our interpreter
/// and XNNPACK; the figure is printed.) Needs MediaPipe and LiteRT from pip (`scripts/test`
/// installs them; see `MediaPipePython`).
final class MediaPipeBundleCompatibilityTests: XCTestCase {
    /// The fixture's photos, others with hands, and one without, as the exact pixels MediaPipe
    /// decoded (the reference `.pixels.png`), so that decoders play no part.
    static let images = GestureTrainingFixture.photos.values.flatMap { $0 } + [
        "hand_pointing_up_left_01", "hand_victory_right_01", "hand_open_palm_01_crop", "hand_closed_fist_01_frame_from_asl_video",
        "hand_four_fingers_02_small_in_room", "neg_banana",
    ]

    func testMediaPipeAndLiteRTLoadOurBundleAndAgree() throws {
        let data = try GestureTrainingFixture.dataset()
        let scratch = try GestureTrainingFixture.temporaryFolder("gesture-mediapipe")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (classifier, bundle) = try GestureTrainingFixture.trainedBundle(named: "trained.task", in: scratch)

        let testdata = try SharedTestData.testdata()
        let pixels = Self.images.sorted().map { testdata.appendingPathComponent("reference/\($0).pixels.png").path }
        let embeddings = data.samples.map(\.embedding)
        let request = scratch.appendingPathComponent("request.json")
        try JSONSerialization.data(withJSONObject: ["images": pixels, "embeddings": embeddings]).write(to: request)
        let answer = try JSONDecoder().decode(
            Answer.self, from: try MediaPipePython.run("gesture_bundle_check.py", [bundle.path, request.path]))
        XCTAssertEqual(answer.labels, classifier.labels)

        let recognizer = try GestureRecognizer(modelPath: bundle.path)
        let graph = try HandGestureRecognizerGraph(
            asset: try ModelAsset(baseOptions: BaseOptions(modelAssetPath: bundle.path)), cannedOptions: nil, customOptions: nil)
        var endToEnd: Float = 0, onTheirHands: Float = 0, customGestures = 0, hands = 0
        for (path, theirs) in zip(pixels, answer.images) {
            let image = try MPImage(contentsOfFile: path)
            let name = URL(fileURLWithPath: path).lastPathComponent
            // End to end: the same gestures; scores as close as the landmarks allow.
            let ours = try recognizer.recognize(image: image).gestures
            XCTAssertEqual(ours.map { $0.map(\.categoryName) }, theirs.gestures.map { $0.map(\.categoryName) }, name)
            for (a, b) in zip(ours.flatMap { $0 }, theirs.gestures.flatMap { $0 }) {
                endToEnd = max(endToEnd, abs(a.score - b.score))
                XCTAssertEqual(a.score, b.score, accuracy: 1e-3, name)
                if classifier.labels.contains(a.categoryName ?? "") { customGestures += 1 }
            }
            // MediaPipe's hands through our embedder and classifiers: MediaPipe's gesture and score.
            for index in theirs.landmarks.indices {
                let handedness = try XCTUnwrap(theirs.handedness[index].first)
                let hand = HandLandmarkerGraph.Hand(
                    landmarks: theirs.landmarks[index].map { NormalizedLandmark(x: $0[0], y: $0[1], z: $0[2]) },
                    worldLandmarks: theirs.worldLandmarks[index].map { Landmark(x: $0[0], y: $0[1], z: $0[2]) },
                    handedness: ResultCategory(index: 0, score: handedness.score, categoryName: handedness.categoryName, displayName: nil),
                    presence: 1, nextFrameRegion: nil)
                let gesture = try XCTUnwrap(try graph.recognize(hand, imageWidth: image.width, imageHeight: image.height))
                let expected = try XCTUnwrap(theirs.gestures[index].first)
                XCTAssertEqual(gesture.categoryName, expected.categoryName, name)
                XCTAssertEqual(gesture.score, expected.score, accuracy: 1e-5, name)
                onTheirHands = max(onTheirHands, abs(gesture.score - expected.score))
                hands += 1
            }
        }
        XCTAssertGreaterThanOrEqual(customGestures, 5, "the trained labels are what MediaPipe reports")

        // LiteRT's interpreter against ours on the classifier alone.
        let runner = try ClassifierRunner(model: try Model(bytes: try classifier.classifierModel()), name: "custom")
        var largestLiteRT: Float = 0
        for (embedding, theirs) in zip(embeddings, answer.scores) {
            for (a, b) in zip(try runner.scores(embedding), theirs) { largestLiteRT = max(largestLiteRT, abs(a - b)) }
        }
        XCTAssertEqual(answer.scores.count, embeddings.count)
        XCTAssertLessThanOrEqual(largestLiteRT, 1e-5)
        print("""
            compatibility: MediaPipe \(answer.mediapipe) on \(pixels.count) images: the same gestures (\(customGestures) custom), \
            largest score difference end to end \(endToEnd), on MediaPipe's \(hands) hands \(onTheirHands); \
            LiteRT \(answer.litert) on \(embeddings.count) embeddings: largest score difference \(largestLiteRT)
            """)
    }

    private struct Answer: Decodable {
        struct Image: Decodable {
            struct Gesture: Decodable {
                var categoryName: String
                var score: Float
            }

            var file: String
            var gestures: [[Gesture]]
            var handedness: [[Gesture]]
            var landmarks: [[[Float]]]
            var worldLandmarks: [[[Float]]]
        }

        var mediapipe: String
        var litert: String
        var images: [Image]
        var scores: [[Float]]
        var labels: [String]
    }
}
