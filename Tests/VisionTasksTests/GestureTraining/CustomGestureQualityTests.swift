import Foundation
import LiteInterpreter
import MediaIO
import TestSupport
@_spi(Apps) @testable import VisionTasks
import XCTest

/// How well a classifier trained in Swift labels hands of people it never saw, against the canned
/// classifier on the same hands. Labelled sets are made here from the shared media: video frames
/// and clips of stills, labelled with the canned classifier under new names (so the trained head
/// must learn them), to train on; photos of other people (labelled by what they show) and clips
/// of those photos to test on. Prints the figures (`quality:` lines).
final class CustomGestureQualityTests: XCTestCase {
    /// New names for the canned gestures that the shared media show.
    static let names = ["None": "none", "Thumb_Up": "approve", "Thumb_Down": "reject", "Pointing_Up": "point", "Closed_Fist": "grip"]
    /// Stills of the people trained on, and of other people held out, with what they show.
    static let trainingStills = ["hand_thumb_up_02_samples", "hand_thumb_up_03_samples", "hand_thumb_down_right_02_selfie", "hand_call_sign_none_01", "hand_ok_sign_none_01"]
    static let heldOutPhotos = [
        "hand_thumb_up_left_01": "approve", "hand_thumb_down_03_across_body": "reject", "hand_pointing_up_left_01": "point",
        "hand_four_fingers_left_01": "none", "hand_four_fingers_02_small_in_room": "none",
    ]

    func testTrainedClassifierLabelsHeldOutPeopleAsWellAsTheCannedOne() throws {
        let testdata = try SharedTestData.testdata()
        let base = try GestureTrainingFixture.baseModel()
        let embedder = try GestureTrainingFixture.embedder()
        let asset = try ModelAsset(baseOptions: BaseOptions(modelAssetPath: base))
        let cannedModel = try asset.model(named: HandGestureRecognizerGraph.cannedClassifierMember)
        let cannedLabels = try XCTUnwrap(try ClassificationLabels(model: cannedModel, outputIndex: 0, locale: "en")?.names)
        let canned = try ClassifierRunner(model: cannedModel, name: "canned")
        let scratch = try GestureTrainingFixture.temporaryFolder("gesture-quality")
        defer { try? FileManager.default.removeItem(at: scratch) }

        /// Embeddings of sampled frames, each with the canned classifier's label (renamed; nil
        /// for a gesture without a new name).
        func frames(of video: URL, framesPerSecond: Double) throws -> [(embedding: [Float], canned: String?)] {
            var result: [(embedding: [Float], canned: String?)] = []
            try MediaFileDecoder().sampleFrames(ofVideoAt: video, framesPerSecond: framesPerSecond) { image, _ in
                guard let embedding = try embedder.embedding(of: image) else { return }
                result.append((embedding, Self.names[cannedLabels[try canned.topClass(embedding)]]))
            }
            return result
        }
        func clip(of still: String) throws -> URL {
            let url = scratch.appendingPathComponent("\(still).mp4")
            let places = [(200, 200, 300), (440, 220, 320), (320, 240, 420), (220, 300, 260), (420, 280, 360), (320, 240, 480)]
            try GestureClips.write(
                places.flatMap { Array(repeating: GestureClips.Shot(still, centerX: $0.0, centerY: $0.1, height: $0.2), count: 6) },
                to: url.path, testdata: testdata)
            return url
        }

        // Training: the ASL letters video (fists, pointing, none), the hand samples video (none),
        // and clips of the training people's stills, labelled by the canned classifier.
        var training = try frames(of: testdata.appendingPathComponent("media/video_hand_asl_letters.mp4"), framesPerSecond: 5)
        training += try frames(of: testdata.appendingPathComponent("media/video_hand_samples_test.mp4"), framesPerSecond: 2)
        for still in Self.trainingStills { training += try frames(of: try clip(of: still), framesPerSecond: 5) }
        var train = GestureDataset()
        train.embedderIdentity = embedder.identity
        for (embedding, label) in training {
            guard let label else { continue }
            try train.insert(label: label)
            train.samples.append(GestureSample(label: label, embedding: embedding))
        }
        let (trainPart, validationPart) = try train.split(0.8, seed: 1)
        var options = GestureTrainingOptions()
        options.hyperparameters.epochs = 30
        let classifier = try CustomGestureClassifier.train(trainData: trainPart, validationData: validationPart, options: options)
        print("quality: trained on \(trainPart.count) samples \(trainPart.sampleCounts), validation accuracy \(classifier.history.last?.validationAccuracy ?? 0)")

        // Held out: photos of other people, by what they show, and clips of those photos.
        var photoTruths: [String] = [], photoTrained: [String] = [], photoCanned: [String] = []
        var clipTrained: [String] = [], clipCanned: [String] = []
        for (name, truth) in Self.heldOutPhotos.sorted(by: { $0.key < $1.key }) {
            let image = try MPImage(contentsOfFile: testdata.appendingPathComponent("media/\(name).jpg").path)
            if let embedding = try embedder.embedding(of: image) {
                photoTruths.append(truth)
                photoTrained.append(classifier.labels[CustomGestureClassifier.argmax(try classifier.scores(for: embedding))])
                let cannedLabel = cannedLabels[try canned.topClass(embedding)]
                photoCanned.append(Self.names[cannedLabel] ?? cannedLabel)
            }
            for (embedding, cannedLabel) in try frames(of: try clip(of: name), framesPerSecond: 5) {
                clipTrained.append(classifier.labels[CustomGestureClassifier.argmax(try classifier.scores(for: embedding))])
                clipCanned.append(cannedLabel ?? "other")
            }
        }
        let trainedOnPhotos = GestureEvaluation(labels: classifier.labels, truths: photoTruths, predictions: photoTrained)
        let cannedOnPhotos = GestureEvaluation(labels: classifier.labels, truths: photoTruths, predictions: photoCanned)
        let clips = GestureEvaluation(labels: classifier.labels, truths: clipCanned, predictions: clipTrained)
        print("quality: held-out photos (\(photoTruths.count) with a hand): trained \(trainedOnPhotos.correctCount)/\(trainedOnPhotos.sampleCount), canned \(cannedOnPhotos.correctCount)/\(cannedOnPhotos.sampleCount); trained \(photoTrained), canned \(photoCanned), truth \(photoTruths)")
        print("quality: held-out clip frames: \(clips.sampleCount), trained agrees with canned on \(clips.correctCount) (\(String(format: "%.3f", clips.accuracy)))")
        print("quality: confusion on held-out clip frames (rows: canned, columns: trained) \(clips.labels): \(clips.confusionMatrix)")
        XCTAssertEqual(photoTruths.count, Self.heldOutPhotos.count, "a hand in every held-out photo")
        XCTAssertGreaterThanOrEqual(trainedOnPhotos.correctCount, cannedOnPhotos.correctCount)
        XCTAssertGreaterThanOrEqual(clips.accuracy, 0.8)
    }
}
