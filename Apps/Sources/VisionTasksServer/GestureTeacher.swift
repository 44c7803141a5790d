import Dispatch
import Foundation
@_spi(Apps) import VisionTasks

/// What a live session was taught: the gesture samples it recorded, per label, and the
/// classifiers it trained on them or took from bundles it uploaded, kept by name. Everything is
/// in memory and ends with the session; `ServerLimits` bounds it (labels, samples per label,
/// classifiers and their bytes).
///
/// While a label is being recorded, every processed frame of the gesture session that shows
/// a hand adds a sample: the first hand's landmarks, as the session's recognizer found them,
/// embedded by the server's `GestureEmbedder` (the hand model is not run again). Training is
/// Model Maker's (`CustomGestureClassifier.train` with its defaults, on 80% of each label's
/// samples; the other 20% evaluate it) and runs on the session's worker, off the server's I/O
/// threads. Thread-safe.
final class GestureTeacher: @unchecked Sendable {
    /// A label needs this many samples to train on: one for training and one for the test
    /// part at least, and a few to be worth a classifier.
    static let minSamplesPerLabel = 5
    /// The share of each label's samples held out to evaluate the trained classifier.
    static let testFraction = 0.2

    /// A classifier kept under its name: trained on the session, or taken from a bundle the
    /// client uploaded.
    struct Taught: Sendable {
        /// Its `custom_gesture_classifier.tflite`; its size is what `maxTaughtModelBytes` counts.
        var model: [UInt8]
        /// When it was trained or last switched to (a counter): the least recent goes first.
        var lastUse: UInt64
    }

    /// A new classifier and how it did.
    struct Trained: Sendable {
        var name: String
        var classifier: CustomGestureClassifier
        /// The gesture recognizer bundle to run: the server's models and this classifier.
        var bundle: Data
        var evaluation: GestureEvaluation
        var trainingSamples: Int
        var testSamples: Int
        /// The epochs it was trained for.
        var epochs: Int
        var trainingMilliseconds: Double
        /// Classifiers dropped to stay within the limits.
        var dropped: [String]
    }

    private let limits: ServerLimits
    private let embedder: TeachEmbedder
    private let lock = NSLock()
    private var recordingLabel: String?
    private var perLabel: [String: GestureDataset] = [:]
    private var taught: [String: Taught] = [:]
    private var useCounter: UInt64 = 0

    init(limits: ServerLimits, embedder: TeachEmbedder) {
        self.limits = limits
        self.embedder = embedder
    }

    /// The label being recorded, if any.
    var recording: String? { lock.withLock { recordingLabel } }

    /// The number of samples of each label recorded so far.
    var sampleCounts: [String: Int] { lock.withLock { perLabel.mapValues(\.count) } }

    /// The names of the kept classifiers, sorted.
    var taughtNames: [String] { lock.withLock { taught.keys.sorted() } }

    /// Starts recording `label` (stopping any other): `teachFailed` when the session already
    /// has `maxTeachLabels` other labels, or `label` is full.
    func startRecording(_ label: String) throws(ServerError) {
        lock.lock()
        defer { lock.unlock() }
        do {
            if perLabel[label] == nil, perLabel.count >= limits.maxTeachLabels {
                throw ServerError(
                    code: .teachFailed,
                    message: "this session already has its maximum of \(limits.maxTeachLabels) labels (\(perLabel.keys.sorted().joined(separator: ", "))); clear one to record \(label)")
            }
            if let data = perLabel[label], data.count >= limits.maxTeachSamplesPerLabel {
                throw ServerError(
                    code: .teachFailed,
                    message: "\(label) already has its maximum of \(limits.maxTeachSamplesPerLabel) samples; clear it to record it again")
            }
            if perLabel[label] == nil { perLabel[label] = GestureDataset() }
            recordingLabel = label
        }
    }

    /// Stops recording.
    func stopRecording() { lock.withLock { recordingLabel = nil } }

    /// Forgets the samples of `label` (all labels when nil); recording stops. `teachFailed` for
    /// a label that has none.
    func clear(_ label: String?) throws(ServerError) {
        lock.lock()
        defer { lock.unlock() }
        do {
            recordingLabel = nil
            guard let label else {
                perLabel = [:]
                return
            }
            guard perLabel.removeValue(forKey: label) != nil else {
                throw ServerError(
                    code: .teachFailed,
                    message: "there are no samples of \(label) to clear; the labels are \(perLabel.keys.sorted().joined(separator: ", "))")
            }
        }
    }

    /// What recording did with one processed frame.
    enum Recorded {
        /// A sample was added to `label`; `full` when the label reached its limit and recording stopped.
        case sample(label: String, full: Bool)
        /// Recording stopped: the frame's hand could not be embedded (the message says why).
        case failed(ServerError)
    }

    /// While recording, adds the first hand of `result` (a frame of `imageWidth` ×
    /// `imageHeight` pixels) under the recorded label. `mirrored` is the session's setting: its
    /// results report the hand's real side, while the recognizer embeds the side it sees in the
    /// frame, so the side is turned back to match what the trained classifier will be given.
    /// Nil when not recording or the frame has no hand.
    func record(_ result: GestureRecognizerResult, imageWidth: Int, imageHeight: Int, mirrored: Bool) -> Recorded? {
        guard let label = recording, let landmarks = result.landmarks.first,
            let world = result.worldLandmarks.first, let side = result.handedness.first
        else { return nil }
        let handedness = mirrored ? side.map(Self.otherSide) : side
        let embedder: GestureEmbedder
        do {
            embedder = try self.embedder.embedder()
        } catch {
            lock.withLock { recordingLabel = nil }
            return .failed(ServerError(code: .teachFailed, message: "the gesture embedder cannot be made from the server's bundle: \(error)"))
        }
        return lock.withLock { () -> Recorded? in
            // Stopped, or switched to another label, while the frame was processed.
            guard recordingLabel == label, var data = perLabel[label] else { return nil }
            perLabel[label] = nil  // one copy of the samples while adding (no copy on write)
            defer { perLabel[label] = data }
            do {
                try data.add(
                    landmarks: landmarks, worldLandmarks: world, handedness: handedness,
                    imageWidth: imageWidth, imageHeight: imageHeight, label: label, using: embedder)
            } catch {
                recordingLabel = nil
                return .failed(ServerError(code: .teachFailed, message: "the hand could not be recorded: \(error)"))
            }
            let full = data.count >= limits.maxTeachSamplesPerLabel
            if full { recordingLabel = nil }
            return .sample(label: label, full: full)
        }
    }

    /// Trains a classifier on the recorded samples as `request` asks, keeps it under its name
    /// (dropping the least recently used ones beyond the limits) and returns it with its
    /// evaluation on the held-out samples. Recording stops. `teachFailed` when the samples
    /// cannot train a classifier: no `none` label, fewer than two labels, a label with fewer
    /// than `minSamplesPerLabel` samples; training's own errors as `teachFailed` too.
    func train(_ request: TeachRequest.Training) throws(ServerError) -> Trained {
        let labels: [String: GestureDataset] = lock.withLock {
            recordingLabel = nil
            return perLabel
        }
        let names = labels.keys.sorted()
        guard names.contains(where: { $0.lowercased() == "none" }) else {
            throw ServerError(
                code: .teachFailed,
                message: "training needs samples of none, hands that show none of your gestures (recorded: \(names.isEmpty ? "nothing" : names.joined(separator: ", ")))")
        }
        guard names.count >= 2 else {
            throw ServerError(code: .teachFailed, message: "training needs at least one gesture beside none; record one")
        }
        if let few = names.first(where: { labels[$0, default: GestureDataset()].count < Self.minSamplesPerLabel }) {
            throw ServerError(
                code: .teachFailed,
                message: "\(few) has \(labels[few]?.count ?? 0) samples; each label needs at least \(Self.minSamplesPerLabel) frames with a hand")
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let classifier: CustomGestureClassifier
        let evaluation: GestureEvaluation
        let train: GestureDataset, test: GestureDataset
        let bundle: [UInt8], model: [UInt8]
        do {
            var all = GestureDataset()
            for name in names {
                if let data = labels[name] { try all.append(contentsOf: data) }
            }
            (train, _, test) = try all.split(validationFraction: 0, testFraction: Self.testFraction)
            var options = GestureTrainingOptions()
            options.hyperparameters.epochs = request.epochs
            options.hyperparameters.batchSize = request.batchSize
            classifier = try CustomGestureClassifier.train(trainData: train, options: options)
            evaluation = try classifier.evaluate(test)
            model = try classifier.classifierModel()
            // The samples were embedded with this bundle's models: no need to check them again.
            bundle = try CustomGestureClassifier.modelBundle(asset: embedder.asset(), customClassifier: model)
        } catch {
            throw ServerError(code: .teachFailed, message: "training failed: \(error)")
        }
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
        try checkSize(of: model)
        let dropped = keep(model, named: request.name)
        return Trained(
            name: request.name, classifier: classifier, bundle: Data(bundle), evaluation: evaluation,
            trainingSamples: train.count, testSamples: test.count, epochs: request.epochs, trainingMilliseconds: milliseconds,
            dropped: dropped)
    }

    /// `teachFailed` when a classifier of `model`'s size is more than a session keeps.
    private func checkSize(of model: [UInt8]) throws(ServerError) {
        guard model.count <= limits.maxTaughtModelBytes else {
            throw ServerError(
                code: .teachFailed,
                message: "the classifier takes \(model.count) bytes, more than the \(limits.maxTaughtModelBytes) this server keeps per session")
        }
    }

    /// Keeps the classifier `model` as `name`, replacing one of that name; drops the least
    /// recently used others while more than `maxTaughtModels` or `maxTaughtModelBytes` are
    /// kept. Returns the dropped names.
    func keep(_ model: [UInt8], named name: String) -> [String] {
        lock.withLock {
            useCounter += 1
            taught[name] = Taught(model: model, lastUse: useCounter)
            var dropped: [String] = []
            while taught.count > limits.maxTaughtModels || taught.values.reduce(0, { $0 + $1.model.count }) > limits.maxTaughtModelBytes {
                guard let oldest = taught.filter({ $0.key != name }).min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { break }
                taught[oldest] = nil
                dropped.append(oldest)
            }
            return dropped
        }
    }

    /// The custom classifier of an uploaded gesture recognizer bundle and the bundle the session
    /// runs with it (the server's models and that classifier); nothing is kept yet (`keep`, once
    /// a recognizer was made from the bundle). `teachFailed` when `upload` is not a gesture
    /// recognizer bundle with a custom classifier, embeds with another embedder than the
    /// server's, or its classifier is larger than a session keeps.
    func classifier(fromUpload upload: Data, named name: String) throws(ServerError) -> (model: [UInt8], bundle: Data) {
        do {
            let base = try embedder.asset()
            let model = try CustomGestureClassifier.customClassifier(inBundle: upload, name: "the uploaded bundle", embeddingLike: base)
            try checkSize(of: model)
            return (model, Data(try CustomGestureClassifier.modelBundle(asset: base, customClassifier: model)))
        } catch let error as ServerError {
            throw error
        } catch {
            throw ServerError(code: .teachFailed, message: "\(name) cannot be used: \(error)")
        }
    }

    /// The bundle of the classifier kept as `name` (the server's models and that classifier):
    /// `teachFailed` when none is kept under that name.
    func bundle(named name: String) throws(ServerError) -> Data {
        let kept: [UInt8]? = lock.withLock {
            guard taught[name] != nil else { return nil }
            useCounter += 1
            taught[name]?.lastUse = useCounter
            return taught[name]?.model
        }
        guard let model = kept else {
            let names = taughtNames
            throw ServerError(
                code: .teachFailed,
                message: "no classifier is kept as \(name); \(names.isEmpty ? "none was trained on this session" : "the kept ones are \(names.joined(separator: ", "))")")
        }
        do {
            return Data(try CustomGestureClassifier.modelBundle(asset: try embedder.asset(), customClassifier: model))
        } catch {
            throw ServerError(code: .teachFailed, message: "the bundle of \(name) cannot be assembled: \(error)")
        }
    }

    /// The same category for the other hand.
    private static func otherSide(_ category: ResultCategory) -> ResultCategory {
        switch category.categoryName {
        case "Left": return ResultCategory(index: 0, score: category.score, categoryName: "Right", displayName: "Right")
        case "Right": return ResultCategory(index: 1, score: category.score, categoryName: "Left", displayName: "Left")
        default: return category
        }
    }
}
