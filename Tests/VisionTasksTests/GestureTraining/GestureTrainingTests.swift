import Foundation
import LiteInterpreter
import MediaIO
import TestSupport
@_spi(Apps) @testable import VisionTasks
import XCTest

/// Custom gestures end to end on real models: a folder of shared photos and a clip becomes a
/// dataset, a classifier trained on it becomes a bundle that `GestureRecognizer` runs as
/// MediaPipe does, and bad folders, files and outputs get clear errors.
final class GestureTrainingTests: XCTestCase {
    func testFolderDatasetHasModelMakersLabelsAndSamplesFromImagesAndVideoFrames() throws {
        let data = try GestureTrainingFixture.dataset()
        XCTAssertEqual(data.labels, ["none", "approve", "reject"])
        let clipSamples = data.samples.filter { $0.source == GestureTrainingFixture.clipName }
        XCTAssertEqual(clipSamples.compactMap(\.timestampInMilliseconds).count, clipSamples.count)
        // 1.2 s of video at 5 frames per second: a frame every 200 ms, with or without a hand.
        let clipTimes = (clipSamples.compactMap(\.timestampInMilliseconds)
            + data.skipped.filter { $0.source == GestureTrainingFixture.clipName }.compactMap(\.timestampInMilliseconds)).sorted()
        XCTAssertEqual(clipTimes.count, 6)
        XCTAssertGreaterThanOrEqual(clipSamples.count, 4, "the thumbs-up still is found in most placements")
        for time in clipTimes { XCTAssertEqual(Double(time).remainder(dividingBy: 200), 0, accuracy: 34) }
        XCTAssertTrue(data.skipped.allSatisfy { !$0.isUnreadable }, "\(data.skipped)")
        XCTAssertTrue(data.samples.allSatisfy { $0.embedding.count == 128 })
        let photoCount = GestureTrainingFixture.photos.values.map(\.count).reduce(0, +)
        XCTAssertEqual(data.samples.filter { $0.timestampInMilliseconds == nil }.count + data.skipped.filter { $0.timestampInMilliseconds == nil }.count, photoCount)
        print("fixture dataset: \(data.sampleCounts), without a hand: \(data.skipped.map { $0.source ?? "" })")
    }

    /// A cache file makes reading the folder again take no model time, and it is refreshed for
    /// a changed file only.
    func testCacheReusesEmbeddingsOfUnchangedFiles() throws {
        let folder = try GestureTrainingFixture.folder()
        let embedder = try GestureTrainingFixture.embedder()
        let scratch = try GestureTrainingFixture.temporaryFolder("gesture-cache")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let cache = scratch.appendingPathComponent("embeddings.json")
        let scanned = try GestureDatasetFolder(url: folder, decoder: MediaFileDecoder())
        let options = GestureDatasetOptions(cache: cache)
        var last: GestureDatasetProgress?
        let first = try GestureDataset(folder: scanned, embedder: embedder, decoder: MediaFileDecoder(), options: options) { last = $0 }
        XCTAssertEqual(last?.filesFromCache, 0)
        XCTAssertEqual(last?.filesDone, scanned.files.count)
        XCTAssertTrue(FileManager.default.fileExists(atPath: cache.path))
        let second = try GestureDataset(folder: scanned, embedder: embedder, decoder: MediaFileDecoder(), options: options) { last = $0 }
        XCTAssertEqual(last?.filesFromCache, scanned.files.count)
        XCTAssertEqual(second.samples, first.samples)
        XCTAssertEqual(second.skipped, first.skipped)
        // Another video rate: the cache does not apply.
        let other = GestureDatasetOptions(videoFramesPerSecond: 2, cache: cache)
        _ = try GestureDataset(folder: scanned, embedder: embedder, decoder: MediaFileDecoder(), options: other) { last = $0 }
        XCTAssertEqual(last?.filesFromCache, 0)
    }

    /// Samples from code: an image, and a hand `HandLandmarker` found, give the embedding the
    /// folder reader gives the same photo.
    func testSamplesFromCodeEqualTheFolderReadersEmbeddings() throws {
        let embedder = try GestureTrainingFixture.embedder()
        let file = try SharedTestData.file("media/hand_thumb_up_02_samples.jpg")
        let image = try MPImage(contentsOf: file)
        var data = GestureDataset()
        XCTAssertTrue(try data.add(image, label: "approve", source: "from code", using: embedder))
        XCTAssertFalse(try data.add(try MPImage(contentsOf: try SharedTestData.file("media/neg_banana.jpg")), label: "none", using: embedder))
        // The embedder's hand detection confidence (Model Maker's 0.7): another threshold keeps
        // other overlapping palm detections, which move the hand's box a little.
        let landmarkerOptions = HandLandmarkerOptions()
        landmarkerOptions.baseOptions.modelAssetPath = try GestureTrainingFixture.baseModel()
        landmarkerOptions.minHandDetectionConfidence = 0.7
        let landmarker = try HandLandmarker(options: landmarkerOptions)
        let hands = try landmarker.detect(image: image)
        let hand = try XCTUnwrap(hands.landmarks.indices.first)
        try data.add(
            landmarks: hands.landmarks[hand], worldLandmarks: hands.worldLandmarks[hand], handedness: hands.handedness[hand],
            imageWidth: image.width, imageHeight: image.height, label: "approve", using: embedder)
        XCTAssertEqual(data.labels, ["none", "approve"])
        XCTAssertEqual(data.count, 2)
        XCTAssertEqual(data.skipped.map(\.reason), [.noHand])
        XCTAssertEqual(data.samples[0].embedding, data.samples[1].embedding)
        let fromFolder = try GestureTrainingFixture.dataset().samples.first { $0.source == "approve/hand_thumb_up_02_samples.jpg" }
        XCTAssertEqual(fromFolder?.embedding, data.samples[0].embedding)
        XCTAssertThrowsError(try data.add(
            landmarks: [], worldLandmarks: [], handedness: [], imageWidth: 10, imageHeight: 10, label: "approve", using: embedder))
        XCTAssertThrowsError(try data.add(image, label: "two\nlines", using: embedder))
    }

    /// The exported bundle: `GestureRecognizer` reports the trained labels with the classifier's
    /// scores, a custom label only at 0.5 or more (else the canned gesture), as MediaPipe's
    /// combined prediction does; the same seed writes the same bytes; evaluating the bundle
    /// equals evaluating the classifier.
    func testExportedBundleRecognisesTheTrainedGesturesAsMediaPipeCombinesThem() throws {
        let data = try GestureTrainingFixture.dataset()
        let scratch = try GestureTrainingFixture.temporaryFolder("gesture-export")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (classifier, bundle) = try GestureTrainingFixture.trainedBundle(named: "my_gestures.task", in: scratch)
        let base = try GestureTrainingFixture.baseModel()
        let (_, again) = try GestureTrainingFixture.trainedBundle(named: "again.task", in: scratch)
        XCTAssertEqual(try Data(contentsOf: again), try Data(contentsOf: bundle))

        let taskBundle = try TaskBundle(contentsOf: bundle)
        XCTAssertEqual(taskBundle.memberNames, ["hand_landmarker.task", "hand_gesture_recognizer.task"])
        XCTAssertEqual(
            try taskBundle.bundle(named: "hand_gesture_recognizer.task").memberNames,
            ["gesture_embedder.tflite", "canned_gesture_classifier.tflite", "custom_gesture_classifier.tflite"])
        let names = try GestureClassifierNames(baseOptions: BaseOptions(modelAssetPath: bundle.path))
        XCTAssertEqual(names.custom, ["none", "approve", "reject"])

        let recognizer = try GestureRecognizer(modelPath: bundle.path)
        let canned = try GestureRecognizer(modelPath: base)
        let embedder = try GestureTrainingFixture.embedder()
        var customLabels = 0
        for names in GestureTrainingFixture.photos.values {
            for name in names {
                let image = try MPImage(contentsOf: try SharedTestData.file("media/\(name).jpg"))
                let result = try recognizer.recognize(image: image)
                guard let gesture = result.gestures.first?.first else { continue }
                // The recognizer's hand (detection confidence 0.5) is the embedder's (0.7) here.
                let landmarks = try XCTUnwrap(result.landmarks.first)
                let embedding = try embedder.embedding(
                    landmarks: landmarks, worldLandmarks: result.worldLandmarks[0], handedness: result.handedness[0],
                    imageWidth: image.width, imageHeight: image.height)
                let scores = try classifier.scores(for: embedding)
                let best = CustomGestureClassifier.argmax(scores)
                if scores[best] >= 0.5 {
                    customLabels += 1
                    XCTAssertEqual(gesture.categoryName, classifier.labels[best], name)
                    XCTAssertEqual(gesture.score, scores[best], accuracy: 1e-5, name)
                } else {
                    XCTAssertEqual(gesture.categoryName, try canned.recognize(image: image).gestures.first?.first?.categoryName, name)
                }
            }
        }
        XCTAssertGreaterThan(customLabels, 4)
        XCTAssertEqual(try GestureEvaluation(modelPath: bundle.path, dataset: data), try classifier.evaluate(data))
        // 14 samples (2 of reject): most, not all, are learnt.
        XCTAssertGreaterThanOrEqual(try classifier.evaluate(data).accuracy, 0.75)
        // Google's bundle has no custom classifier: its canned one is evaluated, `none` read as `None`.
        let cannedEvaluation = try GestureEvaluation(modelPath: base, dataset: data)
        XCTAssertEqual(Array(cannedEvaluation.labels.prefix(8)), CannedGesture.allCases.map(\.rawValue))
        XCTAssertEqual(cannedEvaluation.recall(of: "None"), 1)
    }

    /// Exporting over the base bundle is refused; an export that fails leaves the destination
    /// as it was and no partial file; a training stopped from its progress callback writes nothing.
    func testExportNeverOverwritesItsInputsNorLeavesPartialFiles() throws {
        let data = try GestureTrainingFixture.dataset()
        let classifier = try CustomGestureClassifier.train(trainData: data)
        let scratch = try GestureTrainingFixture.temporaryFolder("gesture-atomic")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let base = scratch.appendingPathComponent("base.task")
        try FileManager.default.copyItem(atPath: try GestureTrainingFixture.baseModel(), toPath: base.path)
        let link = scratch.appendingPathComponent("link.task")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: base)
        for output in [base, link] {
            XCTAssertThrowsError(try classifier.exportModel(to: output, baseModelPath: base.path)) { error in
                XCTAssertEqual(error as? GestureTrainingError, .outputOverwritesInput(output: output.path, input: base.path))
            }
        }
        let destination = scratch.appendingPathComponent("mine.task")
        _ = FileManager.default.createFile(atPath: destination.path, contents: Data("before".utf8))
        XCTAssertThrowsError(try classifier.exportModel(to: destination, baseModelPath: scratch.appendingPathComponent("missing.task").path))
        // A base bundle whose embedder differs from the one the training data was embedded with.
        let reference = try TaskBundle(contentsOf: URL(fileURLWithPath: try GestureTrainingFixture.baseModel()))
        let gestures = try reference.bundle(named: "hand_gesture_recognizer.task")
        let otherBase = scratch.appendingPathComponent("other.task")
        try Data(try ZipArchiveWriter.archive([
            .init(name: "hand_landmarker.task", bytes: try reference.member(named: "hand_landmarker.task")),
            .init(name: "hand_gesture_recognizer.task", bytes: try ZipArchiveWriter.archive([
                .init(name: "gesture_embedder.tflite", bytes: try gestures.member(named: "gesture_embedder.tflite") + [0, 0, 0, 0]),
                .init(name: "canned_gesture_classifier.tflite", bytes: try gestures.member(named: "canned_gesture_classifier.tflite")),
            ])),
        ])).write(to: otherBase)
        XCTAssertThrowsError(try classifier.exportModel(to: destination, baseModelPath: otherBase.path)) {
            guard case .embeddingMismatch = $0 as? GestureTrainingError else { return XCTFail("\($0)") }
        }
        try FileManager.default.removeItem(at: otherBase)
        XCTAssertEqual(try Data(contentsOf: destination), Data("before".utf8))
        struct Stop: Error {}
        XCTAssertThrowsError(try CustomGestureClassifier.train(trainData: data) { epoch in
            if epoch.epoch == 2 { throw Stop() }
        }) { XCTAssertTrue($0 is Stop) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted(), ["base.task", "link.task", "mine.task"])
        XCTAssertEqual(try Data(contentsOf: base), try Data(contentsOf: URL(fileURLWithPath: try GestureTrainingFixture.baseModel())))
    }

    /// Every folder training cannot use is refused before any model runs, saying what to do;
    /// files that cannot be samples are left out with a reason; a label whose images show no
    /// hand stops the training with a message naming it.
    func testBadFoldersAndFilesGetClearErrors() throws {
        let root = try GestureTrainingFixture.temporaryFolder("gesture-bad")
        defer { try? FileManager.default.removeItem(at: root) }
        let decoder = MediaFileDecoder()
        func scanError(_ setUp: (URL) throws -> Void) throws -> GestureTrainingError? {
            let folder = root.appendingPathComponent(UUID().uuidString)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try setUp(folder)
            do {
                _ = try GestureDatasetFolder(url: folder, decoder: decoder)
                return nil
            } catch {
                return try XCTUnwrap(error as? GestureTrainingError)
            }
        }
        let photo = try SharedTestData.file("media/hand_thumb_up_02_samples.jpg")
        func label(_ folder: URL, _ name: String, photos: Int = 1) throws {
            let directory = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for index in 0..<photos {
                try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("\(index).jpg"), withDestinationURL: photo)
            }
        }
        let missing = root.appendingPathComponent("missing").path
        XCTAssertThrowsError(try GestureDatasetFolder(url: URL(fileURLWithPath: missing), decoder: decoder)) {
            XCTAssertEqual($0 as? GestureTrainingError, .notAFolder(path: missing))
        }
        guard case .emptyFolder = try scanError({ _ in }) else { return XCTFail("empty folder") }
        XCTAssertEqual(try scanError { try label($0, "wave"); try label($0, "point") }, .missingNoneLabel(labels: ["point", "wave"]))
        XCTAssertEqual(try scanError { try label($0, "None") }, .tooFewLabels(labels: ["None"]))
        XCTAssertEqual(
            try scanError { try label($0, "none"); try label($0, "NONE"); try label($0, "wave") },
            .duplicateNoneLabel(labels: ["NONE", "none"]))
        guard case .labelWithoutMedia(label: "wave", _) = try scanError({ try label($0, "none"); try label($0, "wave", photos: 0) }) else {
            return XCTFail("a label without media")
        }
        let invalid = try scanError { folder in
            try label(folder, "none")
            let path = (Array(folder.path.utf8) + [UInt8(ascii: "/"), 0x77, 0xFF, 0x61, 0]).map { CChar(bitPattern: $0) }
            XCTAssertEqual(mkdir(path, 0o755), 0)
        }
        XCTAssertEqual(invalid, .invalidLabel(name: "w\\xFFa", reason: "has a name that is not valid UTF-8"))
        XCTAssertTrue("\(try XCTUnwrap(invalid))".contains("rename it"))

        // Left out, with reasons: a text file, a subfolder, a file whose name is not UTF-8.
        let folder = root.appendingPathComponent("mixed")
        try label(folder, "none", photos: 2)
        try label(folder, "approve", photos: 1)
        _ = FileManager.default.createFile(atPath: folder.path + "/approve/notes.txt", contents: Data("hi".utf8))
        try FileManager.default.createDirectory(atPath: folder.path + "/approve/more", withIntermediateDirectories: true)
        let rawName = (Array(folder.path.utf8) + Array("/none/caf".utf8) + [0xE9] + Array(".jpg".utf8) + [0]).map { CChar(bitPattern: $0) }
        let descriptor = open(rawName, O_CREAT | O_WRONLY, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        close(descriptor)
        // Damaged images: not a JPEG inside, and a PNG that declares 100000 × 100000 pixels.
        _ = FileManager.default.createFile(atPath: folder.path + "/approve/broken.jpg", contents: Data("not a jpeg".utf8))
        let header = Array("IHDR".utf8) + [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0, 8, 2, 0, 0, 0]
        func crc(_ bytes: [UInt8]) -> [UInt8] { withUnsafeBytes(of: Self.crc32(bytes).bigEndian) { Array($0) } }
        // The signature, IHDR, and an empty IDAT: the image's data starts, so its size is checked.
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + header + crc(header)
            + [0, 0, 0, 0] + Array("IDAT".utf8) + crc(Array("IDAT".utf8))
        _ = FileManager.default.createFile(atPath: folder.path + "/approve/huge.png", contents: Data(png))
        let scanned = try GestureDatasetFolder(url: folder, decoder: decoder)
        XCTAssertEqual(scanned.labels, ["none", "approve"])
        XCTAssertEqual(scanned.ignored.map(\.relativePath), ["none/caf\\xE9.jpg", "approve/more", "approve/notes.txt"])
        XCTAssertEqual(scanned.files.map(\.relativePath), ["none/0.jpg", "none/1.jpg", "approve/0.jpg", "approve/broken.jpg", "approve/huge.png"])
        let data = try GestureDataset(folder: scanned, embedder: try GestureTrainingFixture.embedder(), decoder: decoder)
        let unreadable = data.skipped.filter(\.isUnreadable)
        XCTAssertEqual(unreadable.compactMap(\.source), ["approve/broken.jpg", "approve/huge.png"])
        XCTAssertTrue(unreadable.map { "\($0.reason)" }.joined().contains("100000x100000"), "\(unreadable)")

        // A label whose images show no hand.
        let noHands = root.appendingPathComponent("nohands")
        try label(noHands, "none", photos: 2)
        try FileManager.default.createDirectory(at: noHands.appendingPathComponent("fruit"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: noHands.appendingPathComponent("fruit/banana.jpg"), withDestinationURL: try SharedTestData.file("media/neg_banana.jpg"))
        let fruitless = try GestureDataset(folder: noHands, embedder: try GestureTrainingFixture.embedder())
        XCTAssertEqual(fruitless.sampleCounts["fruit"], 0)
        XCTAssertThrowsError(try CustomGestureClassifier.train(trainData: fruitless)) {
            XCTAssertEqual($0 as? GestureTrainingError, .labelWithoutSamples(label: "fruit", withoutHand: 1, unreadable: 0))
        }
    }

    /// The CRC-32 of zip and PNG.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
