import Foundation
import LiteInterpreter

/// How well a gesture classifier labels a dataset: accuracy, each label's precision and recall,
/// and the confusion matrix. The classifier's label for a sample is its highest-scoring class
/// (as Model Maker's `evaluate` counts, before any score threshold; in a `GestureRecognizer`, a
/// custom gesture scoring below the bundle's threshold gives way to the canned classifier's).
public struct GestureEvaluation: Sendable, Equatable {
    /// The labels of the matrix's rows and columns: the classifier's classes, then any dataset
    /// labels the classifier does not have.
    public let labels: [String]
    /// `confusionMatrix[t][p]`: how many samples of label `labels[t]` the classifier labelled
    /// `labels[p]`.
    public let confusionMatrix: [[Int]]

    /// The number of samples evaluated.
    public var sampleCount: Int { confusionMatrix.reduce(0) { $0 + $1.reduce(0, +) } }
    /// The number labelled right.
    public var correctCount: Int { labels.indices.reduce(0) { $0 + confusionMatrix[$1][$1] } }
    /// The fraction labelled right (0 for no samples).
    public var accuracy: Double { sampleCount == 0 ? 0 : Double(correctCount) / Double(sampleCount) }

    /// Of the samples labelled `label`, the fraction that are `label`; nil when none was.
    public func precision(of label: String) -> Double? {
        guard let index = labels.firstIndex(of: label) else { return nil }
        let predicted = confusionMatrix.reduce(0) { $0 + $1[index] }
        return predicted == 0 ? nil : Double(confusionMatrix[index][index]) / Double(predicted)
    }

    /// Of the samples that are `label`, the fraction labelled `label`; nil when there were none.
    public func recall(of label: String) -> Double? {
        guard let index = labels.firstIndex(of: label) else { return nil }
        let actual = confusionMatrix[index].reduce(0, +)
        return actual == 0 ? nil : Double(confusionMatrix[index][index]) / Double(actual)
    }

    /// An evaluation from true and predicted labels, in pairs. `labels` orders the matrix;
    /// labels met that it lacks are appended.
    public init(labels: [String], truths: [String], predictions: [String]) {
        var all = labels
        for label in truths + predictions where !all.contains(label) { all.append(label) }
        let index = Dictionary(all.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var matrix = [[Int]](repeating: [Int](repeating: 0, count: all.count), count: all.count)
        for (truth, prediction) in zip(truths, predictions) {
            if let t = index[truth], let p = index[prediction] { matrix[t][p] += 1 }
        }
        self.labels = all
        confusionMatrix = matrix
    }

    /// Evaluates the gesture classifier of a bundle on `dataset`: its custom classifier, or the
    /// canned one when it has none (Google's `gesture_recognizer.task`). Dataset labels match
    /// the classifier's classes by name, ignoring case when no class has the exact name (so a
    /// folder `none` or `thumb_up` counts for `None` or `Thumb_Up`).
    /// - Throws: `GestureTrainingError.embeddingMismatch` when the dataset was embedded with
    ///   other hand or embedder models than the bundle's (embed it with
    ///   `GestureEmbedder(modelPath:)` on the same bundle); `TasksError` for a missing or
    ///   unusable bundle.
    public init(modelPath: String, dataset: GestureDataset) throws {
        let asset = try ModelAsset(baseOptions: BaseOptions(modelAssetPath: modelPath))
        let models = try GestureEmbedderIdentity.fingerprint(of: asset)
        if let embedded = dataset.embedderIdentity?.models, embedded != models {
            throw GestureTrainingError.embeddingMismatch(
                "the dataset was embedded with other hand or embedder models (\(embedded)) than those of \(modelPath) (\(models)): embed it with a GestureEmbedder on that bundle")
        }
        // The custom classifier when the bundle has one, else the canned one (named as
        // `GestureRecognizer` names it when it carries no labels).
        let custom: Model?
        do {
            custom = try asset.model(named: HandGestureRecognizerGraph.customClassifierMember)
        } catch TasksError.notFound {
            custom = nil
        }
        let model = try custom ?? asset.model(named: HandGestureRecognizerGraph.cannedClassifierMember)
        let labels = try ClassificationLabels(model: model, outputIndex: 0, locale: "en")?.names
            ?? (custom == nil ? CannedGesture.allCases.map(\.rawValue) : [])
        let runner = try ClassifierRunner(model: model, name: modelPath)
        let predictions = try dataset.samples.map { sample -> String in
            let index = try runner.topClass(sample.embedding)
            return index < labels.count ? labels[index] : "class \(index)"
        }
        let truths = dataset.samples.map { sample -> String in
            if labels.contains(sample.label) { return sample.label }
            return labels.first { $0.lowercased() == sample.label.lowercased() } ?? sample.label
        }
        self.init(labels: labels, truths: truths, predictions: predictions)
    }
}

/// Runs a classifier model on embeddings and takes the highest score.
struct ClassifierRunner {
    private let interpreter: Interpreter
    private let inputSize: Int

    init(model: Model, name: String) throws {
        guard model.inputs.count == 1, model.outputs.count == 1, model.outputs[0].elementCount > 0 else {
            throw TasksError.invalidArgument(
                "\(name): a gesture classifier has one input (the embedding) and one output (the class scores), got \(model.inputs.count) and \(model.outputs.count)")
        }
        inputSize = model.inputs[0].elementCount
        do {
            interpreter = try Interpreter(model: model, options: Interpreter.Options(threadCount: 1))
        } catch {
            throw TasksError.invalidArgument("\(name): the gesture classifier cannot run: \(error)")
        }
    }

    /// The scores of one embedding.
    func scores(_ embedding: [Float]) throws -> [Float] {
        guard embedding.count == inputSize else {
            throw GestureTrainingError.embeddingMismatch(
                "the classifier takes \(inputSize) embedding values, the dataset has \(embedding.count)")
        }
        try interpreter.copy(embedding, toInputAt: 0)
        try interpreter.invoke()
        return try interpreter.withUnsafeOutputBuffer(at: 0) { Array($0) }
    }

    /// The index of the first highest score.
    func topClass(_ embedding: [Float]) throws -> Int {
        CustomGestureClassifier.argmax(try scores(embedding))
    }
}

extension CustomGestureClassifier {
    /// Evaluates the classifier on `data` through its exported model (`classifierModel()`, run
    /// by `LiteInterpreter`): what a bundle with it computes. Model Maker's `evaluate`.
    public func evaluate(_ data: GestureDataset) throws -> GestureEvaluation {
        let model: Model
        do {
            model = try Model(bytes: try classifierModel())
        } catch let error as ModelError {
            throw TasksError.internalError("The exported classifier does not load: \(error)")
        }
        let runner = try ClassifierRunner(model: model, name: "the custom gesture classifier")
        let predictions = try data.samples.map { labels[try runner.topClass($0.embedding)] }
        return GestureEvaluation(labels: labels, truths: data.samples.map(\.label), predictions: predictions)
    }
}
