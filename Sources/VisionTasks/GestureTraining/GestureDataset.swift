import Foundation

/// Labelled gesture embeddings to train and evaluate a custom gesture classifier on: Model
/// Maker's `gesture_recognizer.Dataset`.
///
/// A dataset comes from a folder in Model Maker's layout (`GestureDatasetFolder`; with MediaIO,
/// `GestureDataset(folder:embedder:options:progress:)` also reads videos there), from a file
/// written earlier (`init(contentsOf:)`), or from code: `add(_:label:source:using:)` takes an
/// image, `add(landmarks:worldLandmarks:handedness:imageWidth:imageHeight:label:source:using:)`
/// a hand another task found. Hands are embedded once, when they are added; training again,
/// with other options, takes no model time.
///
/// ```swift
/// import Foundation   // URL
/// import MediaIO      // GestureDataset(folder:embedder:), decoding the files
///
/// let embedder = try GestureEmbedder(modelPath: "gesture_recognizer.task")
/// let data = try GestureDataset(folder: URL(fileURLWithPath: "rps_data_sample"), embedder: embedder)
/// let (train, validation, test) = try data.split(validationFraction: 0.1, testFraction: 0.1)
/// ```
///
/// Labels are kept in Model Maker's order, `none` (in any case) first and the others sorted;
/// it is the trained classifier's class order.
public struct GestureDataset: Sendable {
    /// An image, frame or file that gave no sample.
    public struct SkippedInput: Sendable, Equatable {
        /// Why no sample came from it.
        public enum Reason: Sendable, Equatable {
            /// No hand was found (with the embedder's detection confidence).
            case noHand
            /// The file could not be decoded; the decoder's message.
            case unreadable(String)
        }

        /// The file's path in the dataset folder, or the source the caller gave.
        public var source: String?
        /// The label it was meant for.
        public var label: String
        /// For a video frame, its time in the video.
        public var timestampInMilliseconds: Int?
        /// Why it was skipped.
        public var reason: Reason

        /// Whether the file could not be read (rather than showing no hand).
        public var isUnreadable: Bool {
            if case .unreadable = reason { return true }
            return false
        }
    }

    /// The labels, `none` first, the others sorted.
    public internal(set) var labels: [String] = []
    /// The samples, in the order they were added (after `split`, in a random order).
    public internal(set) var samples: [GestureSample] = []
    /// What gave no sample: images and frames without a hand, files that could not be read.
    public internal(set) var skipped: [SkippedInput] = []
    /// The models and settings the embeddings were made with (nil while empty).
    var embedderIdentity: GestureEmbedderIdentity?
    /// For a folder dataset: the video sampling rate and each file's size and time, so that a
    /// cached dataset is reused only for files that did not change.
    var videoFramesPerSecond: Double?
    var files: [String: FileStamp] = [:]

    /// A file's size and modification time when it was embedded.
    struct FileStamp: Sendable, Equatable, Codable {
        var size: Int64
        var modified: Double
    }

    /// An empty dataset.
    public init() {}

    /// The number of samples.
    public var count: Int { samples.count }

    /// The number of samples of each label (0 for a label all of whose inputs were skipped).
    public var sampleCounts: [String: Int] {
        var counts = Dictionary(uniqueKeysWithValues: labels.map { ($0, 0) })
        for sample in samples { counts[sample.label, default: 0] += 1 }
        return counts
    }

    /// The label called `none` in some case, if any.
    public var noneLabel: String? { labels.first(where: Self.isNone) }

    // MARK: - Adding samples

    /// Adds the hand in `image` under `label`; returns false, and records the image in
    /// `skipped`, when no hand is found. Throws `GestureTrainingError.invalidLabel` for an empty
    /// label or one with a line break, `.embeddingMismatch` when the dataset holds embeddings of
    /// other models or settings, and the embedder's errors.
    @discardableResult
    public mutating func add(_ image: MPImage, label: String, source: String? = nil, using embedder: GestureEmbedder) throws -> Bool {
        try prepare(label: label, identity: embedder.identity)
        guard let embedding = try embedder.embedding(of: image) else {
            skipped.append(SkippedInput(source: source, label: label, timestampInMilliseconds: nil, reason: .noHand))
            return false
        }
        samples.append(GestureSample(label: label, embedding: embedding, source: source))
        return true
    }

    /// Adds a hand another task found (one hand's lists of a `HandLandmarkerResult` or
    /// `GestureRecognizerResult`) in an upright image of `imageWidth` × `imageHeight` pixels.
    public mutating func add(
        landmarks: [NormalizedLandmark], worldLandmarks: [Landmark], handedness: [ResultCategory],
        imageWidth: Int, imageHeight: Int, label: String, source: String? = nil, using embedder: GestureEmbedder
    ) throws {
        try prepare(label: label, identity: embedder.identity)
        let embedding = try embedder.embedding(
            landmarks: landmarks, worldLandmarks: worldLandmarks, handedness: handedness,
            imageWidth: imageWidth, imageHeight: imageHeight)
        samples.append(GestureSample(label: label, embedding: embedding, source: source))
    }

    /// Adds the samples, skipped inputs and labels of `other`. Throws
    /// `GestureTrainingError.embeddingMismatch` when its embeddings come from other models or
    /// settings.
    public mutating func append(contentsOf other: GestureDataset) throws {
        if let identity = other.embedderIdentity { try checkIdentity(identity) }
        for label in other.labels { try insert(label: label) }
        samples += other.samples
        skipped += other.skipped
        files.merge(other.files) { _, new in new }
    }

    /// Checks the label and the embedder, and records both.
    private mutating func prepare(label: String, identity: GestureEmbedderIdentity) throws {
        try checkIdentity(identity)
        try insert(label: label)
    }

    private mutating func checkIdentity(_ identity: GestureEmbedderIdentity) throws {
        if let embedderIdentity, embedderIdentity != identity {
            throw GestureTrainingError.embeddingMismatch(
                "the dataset holds embeddings made with other models or hand detection settings (\(embedderIdentity.models), detection \(embedderIdentity.minHandDetectionConfidence)) than these (\(identity.models), detection \(identity.minHandDetectionConfidence)): embed every sample with the same GestureEmbedder")
        }
        embedderIdentity = identity
    }

    mutating func insert(label: String) throws {
        guard !label.isEmpty else { throw GestureTrainingError.invalidLabel(name: "\"\"", reason: "is empty") }
        guard !label.contains(where: \.isNewline) else {
            throw GestureTrainingError.invalidLabel(name: label.debugDescription, reason: "has a line break in it")
        }
        if !labels.contains(label) { labels = Self.labelOrder(labels + [label]) }
    }

    /// Builds a dataset from its parts (reading a dataset file, splitting).
    init(labels: [String], samples: [GestureSample], skipped: [SkippedInput], embedderIdentity: GestureEmbedderIdentity?) {
        self.labels = labels
        self.samples = samples
        self.skipped = skipped
        self.embedderIdentity = embedderIdentity
    }

    /// Records what reading a folder gave (`GestureDataset+Folder`).
    mutating func record(_ entry: FolderEntry) {
        samples += entry.samples
        skipped += entry.skipped
        files[entry.path] = entry.stamp
    }

    /// What one file of a folder gave.
    struct FolderEntry: Sendable {
        var path: String
        var stamp: FileStamp
        var samples: [GestureSample]
        var skipped: [SkippedInput]
    }

    // MARK: - Labels

    /// Whether `label` is the background class (`none` in any case).
    static func isNone(_ label: String) -> Bool {
        label.lowercased() == "none"
    }

    /// Model Maker's label order: sorted by code point (Python's `sorted`), then `none` moved
    /// to the front.
    static func labelOrder(_ labels: [String]) -> [String] {
        let sorted = Array(Set(labels)).sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
        return sorted.filter(isNone) + sorted.filter { !isNone($0) }
    }

    // MARK: - Splitting

    /// Splits the dataset in two, `fraction` of each label's samples (rounded down, but at least
    /// one) in the first part, the rest in the second (Model Maker's `split`, per label so that each label has its
    /// share in both parts). Samples are picked, and each part ordered, at random from `seed`.
    /// Both parts keep every label. Throws `GestureTrainingError.invalidOption` unless
    /// 0 < `fraction` < 1.
    public func split(_ fraction: Double, seed: UInt64 = 0) throws -> (GestureDataset, GestureDataset) {
        guard fraction.isFinite, fraction > 0, fraction < 1 else {
            throw GestureTrainingError.invalidOption(name: "fraction", value: "\(fraction)", requirement: "between 0 and 1")
        }
        var random = SeededRandom(seed: seed, .split)
        var first: [GestureSample] = [], second: [GestureSample] = []
        for label in labels {
            let picked = random.shuffled(samples.filter { $0.label == label })
            // At least one sample of a label goes to the first part (the training part).
            let count = picked.isEmpty ? 0 : max(1, Int((Double(picked.count) * fraction).rounded(.down)))
            first += picked[..<count]
            second += picked[count...]
        }
        func part(_ samples: [GestureSample]) -> GestureDataset {
            var dataset = GestureDataset(
                labels: labels, samples: random.shuffled(samples), skipped: [], embedderIdentity: embedderIdentity)
            dataset.videoFramesPerSecond = videoFramesPerSecond
            return dataset
        }
        return (part(first), part(second))
    }

    /// Splits off a validation and a test part (fractions of each label's samples, rounded
    /// down; either may be 0 for an empty part), the rest to train on, all in random orders
    /// from `seed`. Model Maker's notebooks split 0.8 / 0.1 / 0.1, as the defaults here.
    /// Skipped inputs stay with the training part. Throws `GestureTrainingError.invalidOption`
    /// for fractions below 0 or together 1 or more.
    public func split(
        validationFraction: Double = 0.1, testFraction: Double = 0.1, seed: UInt64 = 0
    ) throws -> (train: GestureDataset, validation: GestureDataset, test: GestureDataset) {
        for (name, value) in [("validationFraction", validationFraction), ("testFraction", testFraction)]
        where !(value.isFinite && value >= 0 && value < 1) {
            throw GestureTrainingError.invalidOption(name: name, value: "\(value)", requirement: "at least 0 and below 1")
        }
        let held = validationFraction + testFraction
        guard held < 1 else {
            throw GestureTrainingError.invalidOption(
                name: "validationFraction + testFraction", value: "\(held)", requirement: "below 1, to leave samples to train on")
        }
        var empty = self
        empty.samples = []
        empty.skipped = []
        guard held > 0 else { return (self, empty, empty) }
        var (train, rest) = try split(1 - held, seed: seed)
        train.skipped = skipped
        if validationFraction == 0 { return (train, empty, rest) }
        if testFraction == 0 { return (train, rest, empty) }
        let (validation, test) = try rest.split(validationFraction / held, seed: seed &+ 1)
        return (train, validation, test)
    }
}
