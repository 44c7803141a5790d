import Foundation

/// A gesture classifier trained on gesture embeddings, the `custom_gesture_classifier.tflite`
/// of a gesture recognizer bundle: what Model Maker's `gesture_recognizer.GestureRecognizer`
/// trains, evaluates and exports, without TensorFlow.
///
/// ```swift
/// import Foundation   // URL
/// import MediaIO      // GestureDataset(folder:embedder:), decoding the files
///
/// let embedder = try GestureEmbedder(modelPath: "gesture_recognizer.task")
/// let data = try GestureDataset(folder: URL(fileURLWithPath: "rps_data_sample"), embedder: embedder)
/// let (train, validation, test) = try data.split(validationFraction: 0.1, testFraction: 0.1)
/// let classifier = try CustomGestureClassifier.train(trainData: train, validationData: validation)
/// print(try classifier.evaluate(test).accuracy)
/// try classifier.exportModel(to: URL(fileURLWithPath: "my_gestures.task"), baseModelPath: "gesture_recognizer.task")
/// ```
///
/// The classifier is Model Maker's: for each hidden width and once more for the output, batch
/// normalisation, ReLU, dropout and a dense layer; softmax. Training is Keras' (Adam, focal
/// loss, the learning rate decayed after each epoch) in single-precision Swift on one thread:
/// deterministic, the same seed and data give the same classifier.
public struct CustomGestureClassifier: Sendable {
    /// The class labels, in output order (the training data's labels: `none` first).
    public let labels: [String]
    /// The options it was trained with.
    public let options: GestureTrainingOptions
    /// The metrics of each epoch, in order.
    public let history: [GestureTrainingEpoch]
    /// The number of embedding values it takes.
    public var embeddingSize: Int { head.inputSize }

    var head: ClassifierHead
    /// The models whose embeddings it was trained on (nil for a dataset built without an
    /// embedder, which cannot happen through the public API).
    let embedderIdentity: GestureEmbedderIdentity?

    /// Trains a classifier on `trainData`, reporting each epoch (with the loss and accuracy on
    /// `validationData`, when given) to `progress`; throwing from `progress` stops the training
    /// with that error. Model Maker's `GestureRecognizer.create(train_data, validation_data,
    /// options)`.
    ///
    /// - Throws: `GestureTrainingError`: `.invalidOption` (see `GestureTrainingOptions.validate()`),
    ///   `.missingNoneLabel`, `.duplicateNoneLabel`, `.tooFewLabels`, `.labelWithoutSamples`
    ///   (a label whose inputs all lacked a hand), `.batchSizeTooLarge`, `.embeddingMismatch`
    ///   (validation data of other models or labels).
    public static func train(
        trainData: GestureDataset, validationData: GestureDataset? = nil,
        options: GestureTrainingOptions = GestureTrainingOptions(),
        progress: ((GestureTrainingEpoch) throws -> Void)? = nil
    ) throws -> CustomGestureClassifier {
        try options.validate()
        let labels = trainData.labels
        let noneLabels = labels.filter(GestureDataset.isNone)
        guard !noneLabels.isEmpty else { throw GestureTrainingError.missingNoneLabel(labels: labels) }
        guard noneLabels.count == 1 else { throw GestureTrainingError.duplicateNoneLabel(labels: noneLabels) }
        guard labels.count >= 2 else { throw GestureTrainingError.tooFewLabels(labels: labels) }
        let counts = trainData.sampleCounts
        for label in labels where counts[label, default: 0] == 0 {
            let skipped = trainData.skipped.filter { $0.label == label }
            let unreadable = skipped.filter(\.isUnreadable).count
            throw GestureTrainingError.labelWithoutSamples(label: label, withoutHand: skipped.count - unreadable, unreadable: unreadable)
        }
        let batchSize = options.hyperparameters.batchSize
        guard trainData.count >= batchSize else {
            throw GestureTrainingError.batchSizeTooLarge(batchSize: batchSize, trainingSamples: trainData.count)
        }
        let size = trainData.samples[0].embedding.count
        let validation = validationData ?? GestureDataset()
        for sample in trainData.samples + validation.samples where sample.embedding.count != size {
            throw GestureTrainingError.embeddingMismatch(
                "samples of \(sample.embedding.count) and \(size) embedding values cannot be trained on together")
        }
        if let identity = validation.embedderIdentity, let trained = trainData.embedderIdentity, identity.models != trained.models {
            throw GestureTrainingError.embeddingMismatch(
                "the validation data was embedded with other models (\(identity.models)) than the training data (\(trained.models))")
        }
        let classOf = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })
        for label in validation.labels where classOf[label] == nil && validation.sampleCounts[label, default: 0] > 0 {
            throw GestureTrainingError.embeddingMismatch(
                "the validation data has the label \(label), which the training data does not have (\(labels.joined(separator: ", ")))")
        }

        let h = options.hyperparameters
        var weightRandom = SeededRandom(seed: h.seed, .weights)
        var dropoutRandom = SeededRandom(seed: h.seed, .dropout)
        var shuffleRandom = SeededRandom(seed: h.seed, .epochShuffle)
        var head = ClassifierHead(
            inputSize: size, hiddenWidths: options.modelOptions.layerWidths, classCount: labels.count,
            dropoutRate: options.modelOptions.dropoutRate, random: &weightRandom)
        var optimizer = AdamOptimizer()
        let loss = FocalLoss(gamma: h.gamma)
        let targets = trainData.samples.map { classOf[$0.label] ?? 0 }
        var history: [GestureTrainingEpoch] = []
        for epoch in 0..<h.epochs {
            let learningRate = h.learningRate * powf(h.learningRateDecay, Float(epoch))
            let order = h.shuffle
                ? Self.bufferShuffled(Array(trainData.samples.indices), bufferSize: 3 * batchSize, random: &shuffleRandom)
                : Array(trainData.samples.indices)
            var lossSum: Float = 0, correct = 0, steps = 0
            // Whole batches only, as Model Maker's `drop_remainder=True`.
            for start in stride(from: 0, through: order.count - batchSize, by: batchSize) {
                let members = order[start..<(start + batchSize)]
                let batch = members.flatMap { trainData.samples[$0].embedding }
                let step = head.trainStep(
                    batch: batch, labels: members.map { targets[$0] }, loss: loss, optimizer: &optimizer,
                    learningRate: learningRate, random: &dropoutRandom)
                lossSum += step.loss
                correct += step.correct
                steps += 1
            }
            var record = GestureTrainingEpoch(
                epoch: epoch + 1, epochs: h.epochs, learningRate: learningRate, loss: lossSum / Float(steps),
                accuracy: Float(correct) / Float(steps * batchSize), validationLoss: nil, validationAccuracy: nil)
            if validation.count > 0 {
                var validationLoss: Float = 0, validationCorrect = 0
                for sample in validation.samples {
                    let p = head.probabilities(sample.embedding)
                    let target = classOf[sample.label] ?? 0
                    validationLoss += loss.lossAndSlope(p[target]).loss
                    if Self.argmax(p) == target { validationCorrect += 1 }
                }
                record.validationLoss = validationLoss / Float(validation.count)
                record.validationAccuracy = Float(validationCorrect) / Float(validation.count)
            }
            history.append(record)
            try progress?(record)
        }
        return CustomGestureClassifier(
            labels: labels, options: options, history: history, head: head, embedderIdentity: trainData.embedderIdentity)
    }

    /// The class probabilities for one embedding, in `labels` order (the exported model
    /// computes the same, up to float rounding).
    public func scores(for embedding: [Float]) throws -> [Float] {
        guard embedding.count == embeddingSize else {
            throw GestureTrainingError.embeddingMismatch(
                "the classifier takes \(embeddingSize) embedding values, got \(embedding.count)")
        }
        return head.probabilities(embedding)
    }

    /// The index of the first largest value.
    static func argmax(_ values: [Float]) -> Int {
        var best = 0
        for i in values.indices where values[i] > values[best] { best = i }
        return best
    }

    /// `indices` in the order TensorFlow's `shuffle(bufferSize)` gives: a buffer of the next
    /// `bufferSize` elements, from which a random one is taken and replaced by the next element.
    static func bufferShuffled(_ indices: [Int], bufferSize: Int, random: inout SeededRandom) -> [Int] {
        var buffer = Array(indices.prefix(bufferSize))
        var next = buffer.count
        var result: [Int] = []
        result.reserveCapacity(indices.count)
        while !buffer.isEmpty {
            let pick = random.index(below: buffer.count)
            result.append(buffer[pick])
            if next < indices.count {
                buffer[pick] = indices[next]
                next += 1
            } else {
                buffer.swapAt(pick, buffer.count - 1)
                buffer.removeLast()
            }
        }
        return result
    }
}

/// The metrics of one training epoch (what Keras prints per epoch for Model Maker).
public struct GestureTrainingEpoch: Sendable, Equatable {
    /// The epoch, from 1.
    public var epoch: Int
    /// The number of epochs.
    public var epochs: Int
    /// The learning rate used in this epoch.
    public var learningRate: Float
    /// The mean focal loss of the epoch's batches (while training: dropout on, batch statistics).
    public var loss: Float
    /// The fraction of the epoch's training samples classified right while training.
    public var accuracy: Float
    /// The mean focal loss on the validation data after the epoch, if any.
    public var validationLoss: Float?
    /// The fraction of the validation data classified right after the epoch, if any.
    public var validationAccuracy: Float?
}
