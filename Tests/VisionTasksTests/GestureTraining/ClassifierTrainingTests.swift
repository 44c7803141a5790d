import Foundation
import LiteInterpreter
@testable import VisionTasks
import XCTest

/// Training arithmetic and its guards, on made-up embeddings (no models): the gradients are the
/// loss' derivatives, training separates separable classes, a seed fixes the result, options and
/// datasets training cannot use are errors, and the exported classifier computes what the
/// trained one does.
final class ClassifierTrainingTests: XCTestCase {
    static let identity = GestureEmbedderIdentity(models: "test", minHandDetectionConfidence: 0.7, minHandPresenceConfidence: 0.5)

    /// `perLabel` samples for each label around its own centre in 16 dimensions.
    static func clusters(_ labels: [String], perLabel: Int, spread: Float = 0.3, seed: UInt64 = 1) -> GestureDataset {
        var random = SeededRandom(seed: seed)
        var samples: [GestureSample] = []
        for (index, label) in labels.enumerated() {
            let centre = (0..<16).map { Float(($0 * 7 + index * 5) % 11) / 11 - 0.5 }
            for n in 0..<perLabel {
                samples.append(GestureSample(
                    label: label, embedding: centre.map { $0 + (random.unitFloat() - 0.5) * spread }, source: "\(label)/\(n)"))
            }
        }
        return GestureDataset(
            labels: GestureDataset.labelOrder(labels), samples: random.shuffled(samples), skipped: [], embedderIdentity: identity)
    }

    /// Model Maker's focal loss docstring: y_true [[0, 1, 0], [0, 0, 1]], y_pred
    /// [[0.05, 0.95, 0], [0.1, 0.8, 0.1]], gamma 2 gives 0.9326.
    func testFocalLossMatchesModelMakersExample() {
        let loss = FocalLoss(gamma: 2)
        let mean = (loss.lossAndSlope(0.95).loss + loss.lossAndSlope(0.1).loss) / 2
        XCTAssertEqual(mean, 0.9326, accuracy: 5e-5)
        XCTAssertEqual(FocalLoss(gamma: 0).lossAndSlope(0.5).loss, -logf(0.5), accuracy: 1e-6)
        // Clipped probabilities have no slope, as TensorFlow's clip.
        XCTAssertEqual(loss.lossAndSlope(1).slope, 0)
        XCTAssertEqual(loss.lossAndSlope(0).slope, 0)
    }

    /// Every analytic gradient (hidden layer, batch norm in training mode, focal loss, softmax)
    /// against central finite differences of the loss, in double-checked float arithmetic.
    func testGradientsMatchFiniteDifferences() {
        var random = SeededRandom(seed: 3)
        var head = ClassifierHead(inputSize: 5, hiddenWidths: [4], classCount: 3, dropoutRate: 0, random: &random)
        // Non-trivial batch norm parameters.
        head.blocks[0].norm.gamma = [1.2, 0.7, -0.4, 1.1, 0.9]
        head.blocks[1].norm.beta = [0.3, -0.2, 0.1, 0.05]
        let batch = (0..<15).map { _ in random.unitFloat() * 2 - 1 }
        let labels = [0, 2, 1]
        let loss = FocalLoss(gamma: 2)
        var copy = head
        let gradients = copy.lossAndGradients(batch: batch, labels: labels, loss: loss, random: &random).gradients
        var worst: Float = 0
        for slot in gradients.indices {
            for i in gradients[slot].indices {
                func lossWith(_ delta: Float) -> Float {
                    var probe = head
                    probe.withVariable(slot) { $0[i] += delta }
                    return probe.lossAndGradients(batch: batch, labels: labels, loss: loss, random: &random).loss
                }
                let h: Float = 1e-2
                let numeric = (lossWith(h) - lossWith(-h)) / (2 * h)
                let error = abs(numeric - gradients[slot][i]) / max(1e-2, abs(numeric))
                worst = max(worst, error)
                XCTAssertLessThan(error, 0.02, "slot \(slot) [\(i)]: analytic \(gradients[slot][i]), numeric \(numeric)")
            }
        }
        print("gradient check: worst relative error \(worst)")
    }

    func testTrainingSeparatesClustersAndTheSeedFixesTheResult() throws {
        let data = Self.clusters(["none", "wave", "point", "fist"], perLabel: 30)
        let (train, validation, test) = try data.split(validationFraction: 0.2, testFraction: 0.2, seed: 5)
        XCTAssertEqual(train.sampleCounts, ["none": 18, "wave": 18, "point": 18, "fist": 18])
        XCTAssertEqual(test.sampleCounts, ["none": 6, "wave": 6, "point": 6, "fist": 6])
        var options = GestureTrainingOptions()
        options.hyperparameters.epochs = 30
        options.hyperparameters.learningRate = 0.01
        var epochs: [GestureTrainingEpoch] = []
        let classifier = try CustomGestureClassifier.train(trainData: train, validationData: validation, options: options) {
            epochs.append($0)
        }
        XCTAssertEqual(classifier.labels, ["none", "fist", "point", "wave"])
        XCTAssertEqual(epochs.count, 30)
        XCTAssertEqual(epochs.map(\.epoch), Array(1...30))
        XCTAssertEqual(epochs[1].learningRate, 0.01 * 0.99, accuracy: 1e-9)
        XCTAssertLessThan(try XCTUnwrap(epochs.last).loss, epochs[0].loss)
        XCTAssertEqual(try XCTUnwrap(epochs.last?.validationAccuracy), 1, accuracy: 1e-6)
        let evaluation = try classifier.evaluate(test)
        XCTAssertEqual(evaluation.accuracy, 1)
        XCTAssertEqual(evaluation.confusionMatrix, [[6, 0, 0, 0], [0, 6, 0, 0], [0, 0, 6, 0], [0, 0, 0, 6]])

        let again = try CustomGestureClassifier.train(trainData: train, validationData: validation, options: options)
        XCTAssertEqual(try again.classifierModel(), try classifier.classifierModel())
        options.hyperparameters.seed = 1
        let other = try CustomGestureClassifier.train(trainData: train, validationData: validation, options: options)
        XCTAssertNotEqual(try other.classifierModel(), try classifier.classifierModel())
        options.hyperparameters.shuffle = true
        options.modelOptions.layerWidths = [8]
        let shuffled = try CustomGestureClassifier.train(trainData: train, validationData: validation, options: options)
        XCTAssertEqual(try shuffled.evaluate(test).accuracy, 1)
    }

    /// The exported model (MUL, ADD with ReLU, FULLY_CONNECTED per layer, SOFTMAX; Model Maker's
    /// metadata) gives the trained classifier's scores through the interpreter.
    func testExportedClassifierComputesTheTrainedScores() throws {
        let data = Self.clusters(["none", "a", "b"], perLabel: 10)
        var options = GestureTrainingOptions()
        options.modelOptions.layerWidths = [6, 5]
        options.hyperparameters.epochs = 3
        let classifier = try CustomGestureClassifier.train(trainData: data, options: options)
        let model = try Model(bytes: try classifier.classifierModel(scoreThreshold: 0.6))
        XCTAssertEqual(model.operatorCounts.map(\.name), ["MUL", "ADD", "FULLY_CONNECTED", "SOFTMAX"])
        XCTAssertEqual(model.operatorCounts.map(\.count), [3, 3, 3, 1])
        XCTAssertEqual(model.inputs.map(\.shape), [[1, 16]])
        XCTAssertEqual(model.outputs.map(\.shape), [[1, 3]])
        let metadata = try XCTUnwrap(model.metadata)
        XCTAssertEqual(metadata.name, "HandGestureRecognition")
        XCTAssertEqual(metadata.inputTensors.first?.name, "embedding")
        XCTAssertEqual(metadata.outputTensors.first?.name, "scores")
        XCTAssertEqual(metadata.outputTensors.first?.scoreThreshold, 0.6)
        XCTAssertEqual(metadata.outputTensors.first?.associatedFiles.first?.kind, .tensorAxisLabels)
        XCTAssertEqual(try model.associatedFile(named: "labels.txt"), Array("none\na\nb".utf8))
        let runner = try ClassifierRunner(model: model, name: "test")
        for sample in data.samples {
            let exported = try runner.scores(sample.embedding)
            for (a, b) in zip(exported, try classifier.scores(for: sample.embedding)) { XCTAssertEqual(a, b, accuracy: 1e-6) }
        }
    }

    func testOptionsTrainingCannotUseAreErrors() throws {
        let data = Self.clusters(["none", "wave"], perLabel: 4)
        func failure(_ change: (inout GestureTrainingOptions) -> Void) -> String {
            var options = GestureTrainingOptions()
            change(&options)
            do {
                _ = try CustomGestureClassifier.train(trainData: data, options: options)
                return "trained"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertTrue(failure { $0.hyperparameters.learningRate = .nan }.hasPrefix("learningRate is nan"))
        XCTAssertTrue(failure { $0.hyperparameters.learningRate = 0 }.hasPrefix("learningRate is 0.0"))
        XCTAssertTrue(failure { $0.hyperparameters.epochs = 0 }.hasPrefix("epochs is 0"))
        XCTAssertTrue(failure { $0.hyperparameters.batchSize = 0 }.hasPrefix("batchSize is 0"))
        XCTAssertTrue(failure { $0.hyperparameters.learningRateDecay = -1 }.hasPrefix("learningRateDecay"))
        XCTAssertTrue(failure { $0.hyperparameters.gamma = .infinity }.hasPrefix("gamma"))
        XCTAssertTrue(failure { $0.modelOptions.dropoutRate = 1 }.hasPrefix("dropoutRate is 1.0"))
        XCTAssertTrue(failure { $0.modelOptions.layerWidths = [8, 0] }.hasPrefix("layerWidths is 0"))
        XCTAssertTrue(failure { $0.hyperparameters.batchSize = 9 }.contains("fewer than the batch size 9"))
        XCTAssertEqual(failure { _ in }, "trained")
    }

    func testDatasetsTrainingCannotUseAreErrors() throws {
        func error(_ data: GestureDataset) -> GestureTrainingError? {
            do {
                _ = try CustomGestureClassifier.train(trainData: data)
                return nil
            } catch {
                return error as? GestureTrainingError
            }
        }
        XCTAssertEqual(error(Self.clusters(["wave", "point"], perLabel: 3)), .missingNoneLabel(labels: ["point", "wave"]))
        XCTAssertEqual(error(Self.clusters(["None"], perLabel: 3)), .tooFewLabels(labels: ["None"]))
        XCTAssertEqual(error(Self.clusters(["none", "None", "x"], perLabel: 3)), .duplicateNoneLabel(labels: ["None", "none"]))
        var noHands = Self.clusters(["none", "wave"], perLabel: 3)
        try noHands.insert(label: "fist")
        XCTAssertEqual(error(noHands), .labelWithoutSamples(label: "fist", withoutHand: 0, unreadable: 0))
        XCTAssertEqual(error(GestureDataset()), .missingNoneLabel(labels: []))
        // Validation data from other models.
        var other = Self.clusters(["none", "wave"], perLabel: 3)
        other = GestureDataset(
            labels: other.labels, samples: other.samples, skipped: [],
            embedderIdentity: GestureEmbedderIdentity(models: "other", minHandDetectionConfidence: 0.7, minHandPresenceConfidence: 0.5))
        XCTAssertThrowsError(try CustomGestureClassifier.train(trainData: Self.clusters(["none", "wave"], perLabel: 3), validationData: other)) {
            guard case .embeddingMismatch = $0 as? GestureTrainingError else { return XCTFail("\($0)") }
        }
    }

    /// Splits are per label, random from the seed, and bad fractions are errors.
    func testSplitsArePerLabelAndSeeded() throws {
        let data = Self.clusters(["none", "wave"], perLabel: 10)
        let (a1, b1) = try data.split(0.7, seed: 9)
        let (a2, _) = try data.split(0.7, seed: 9)
        let (a3, _) = try data.split(0.7, seed: 10)
        XCTAssertEqual(a1.sampleCounts, ["none": 7, "wave": 7])
        XCTAssertEqual(b1.sampleCounts, ["none": 3, "wave": 3])
        XCTAssertEqual(a1.samples, a2.samples)
        XCTAssertNotEqual(a1.samples, a3.samples)
        XCTAssertEqual(Set((a1.samples + b1.samples).compactMap(\.source)), Set(data.samples.compactMap(\.source)))
        XCTAssertThrowsError(try data.split(1))
        XCTAssertThrowsError(try data.split(.nan))
        XCTAssertThrowsError(try data.split(validationFraction: 0.5, testFraction: 0.5))
        XCTAssertThrowsError(try data.split(validationFraction: -0.1, testFraction: 0.1))
        let (train, validation, test) = try data.split(validationFraction: 0, testFraction: 0.3)
        XCTAssertEqual(validation.count, 0)
        XCTAssertEqual([train.count, test.count], [14, 6])
    }

    /// TensorFlow's `shuffle(buffer)` order: a permutation where an element moves ahead by less
    /// than the buffer's size.
    func testBufferShuffleIsALocalPermutation() {
        var random = SeededRandom(seed: 4)
        let order = CustomGestureClassifier.bufferShuffled(Array(0..<100), bufferSize: 6, random: &random)
        XCTAssertEqual(order.sorted(), Array(0..<100))
        XCTAssertNotEqual(order, Array(0..<100))
        for (position, element) in order.enumerated() { XCTAssertLessThan(element, position + 6) }
    }

    /// Dataset files round-trip exactly; damaged ones are typed errors.
    func testDatasetFilesRoundTripAndDamagedOnesAreErrors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-dataset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var data = Self.clusters(["none", "wave"], perLabel: 3)
        data.record(.init(
            path: "wave/clip.mp4", stamp: .init(size: 10, modified: 3.5), samples: [],
            skipped: [.init(source: "wave/clip.mp4", label: "wave", timestampInMilliseconds: 200, reason: .noHand)]))
        let url = folder.appendingPathComponent("data.json")
        try data.write(to: url)
        let read = try GestureDataset(contentsOf: url)
        XCTAssertEqual(read.labels, data.labels)
        XCTAssertEqual(read.samples, data.samples)
        XCTAssertEqual(read.skipped, data.skipped)
        XCTAssertEqual(read.files, data.files)
        XCTAssertEqual(read.embedderIdentity, data.embedderIdentity)

        let text = try String(contentsOf: url, encoding: .utf8)
        func reading(_ damaged: String) -> String {
            let bad = folder.appendingPathComponent("bad.json")
            _ = FileManager.default.createFile(atPath: bad.path, contents: Data(damaged.utf8))
            do {
                _ = try GestureDataset(contentsOf: bad)
                return "read"
            } catch {
                XCTAssertTrue(error is GestureTrainingError, "\(error)")
                return "\(error)"
            }
        }
        XCTAssertTrue(reading("not json").contains("not a dataset file"))
        XCTAssertTrue(reading(text.replacingOccurrences(of: "\"version\":1", with: "\"version\":7")).contains("version 7"))
        let sample = try XCTUnwrap(data.samples.first)
        let encoded = GestureDataset.encode(sample.embedding)
        XCTAssertTrue(reading(text.replacingOccurrences(of: encoded, with: "AAAAAA==")).contains("embedding values"))
        XCTAssertTrue(reading(text.replacingOccurrences(of: encoded, with: "%%%")).contains("not base64"))
        XCTAssertTrue(reading(text.replacingOccurrences(of: encoded, with: GestureDataset.encode([.nan] + sample.embedding.dropFirst())))
            .contains("not finite"))
        XCTAssertTrue(reading(text.replacingOccurrences(of: "\"label\":\"wave\"", with: "\"label\":\"nope\"")).contains("unknown label"))
        XCTAssertTrue(reading(text.replacingOccurrences(of: "[\"none\",\"wave\"]", with: "[\"none\",\"a\\nb\",\"wave\"]")).contains("line break"))
        XCTAssertThrowsError(try GestureDataset(contentsOf: folder)) { XCTAssertTrue("\($0)".contains("not a regular file"), "\($0)") }
    }
}
