/// ML Kit's pose classifier (the pose classification sample's `PoseClassifier`): k nearest
/// neighbours over `PoseEmbedding`s, with outliers filtered first.
///
/// For a pose, and for the same pose mirrored left to right (so that a squat seen from the left
/// matches samples seen from the right), against every sample's embedding:
///
/// 1. the `maxDistanceTopK` (30) samples with the smallest largest per-coordinate distance,
///    each coordinate weighted by `axisWeights` (1, 1, 0.2), the pose or its mirror image,
///    whichever is nearer;
/// 2. of those, the `meanDistanceTopK` (10) with the smallest mean weighted distance (again the
///    nearer of the two);
/// 3. a class's confidence is how many of these are of it: 0 to `confidenceRange` (10).
///
/// The arithmetic is ML Kit's, in single precision and in its order, so the same landmarks and
/// samples give the same confidences. Where ML Kit's priority queues leave a tie between two
/// equally distant samples to chance, the earlier sample (in `samples` order) wins here.
///
/// <!-- snippet-prelude: let csv = "samples.csv"
/// let landmarker = try PoseLandmarker(modelPath: "pose_landmarker_full.task")
/// let image = try MPImage(pixels: [UInt8](repeating: 0, count: 12), width: 2, height: 2, format: .rgb8) -->
/// ```swift
/// let classifier = try PoseClassifier(samples: try PoseSample.samples(contentsOfCSVFile: csv))
/// let result = try landmarker.detect(image: image)
/// if let pose = result.landmarks.first {
///     let classification = classifier.classify(landmarks: pose, imageWidth: image.width, imageHeight: image.height)
///     print(classification.maxConfidenceClass ?? "none", classification.confidences)
/// }
/// ```
///
/// Immutable and `Sendable`: one classifier can serve many streams and threads.
public struct PoseClassifier: Sendable {
    /// The samples, in the order given.
    public let samples: [PoseSample]
    /// The settings.
    public let options: PoseClassifierOptions
    /// The samples' classes, by name.
    public let classNames: [String]
    /// How many samples each class has.
    public let sampleCounts: [String: Int]

    /// Each sample's embedding, flat: `embeddingLength` values per sample.
    private let embeddings: [Float]
    /// Each sample's class, as an index into `classNames`.
    private let sampleClasses: [Int]
    private static let embeddingLength = 3 * PoseEmbedding.vectorCount

    /// A classifier over `samples`. Throws `PoseClassificationError`: `.noSamples`,
    /// `.oneClassOnly` (every sample of one class), `.fewerSamplesThanK` (fewer samples than
    /// `confidenceRange`), `.degeneratePose` (a sample whose landmarks give no usable pose),
    /// `.invalidOptions`.
    public init(samples: [PoseSample], options: PoseClassifierOptions = PoseClassifierOptions()) throws {
        try options.validate()
        guard let first = samples.first else { throw PoseClassificationError.noSamples }
        var counts: [String: Int] = [:]
        for sample in samples { counts[sample.className, default: 0] += 1 }
        guard counts.count >= 2 else { throw PoseClassificationError.oneClassOnly(first.className) }
        let range = min(options.maxDistanceTopK, options.meanDistanceTopK)
        guard samples.count >= range else {
            throw PoseClassificationError.fewerSamplesThanK(count: samples.count, k: range)
        }
        let names = counts.keys.sorted()
        let classIndex = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($0.element, $0.offset) })
        var embeddings: [Float] = []
        embeddings.reserveCapacity(samples.count * Self.embeddingLength)
        for sample in samples {
            guard let embedding = PoseEmbedding(landmarks: sample.landmarks, torsoMultiplier: options.torsoMultiplier) else {
                throw PoseClassificationError.degeneratePose(line: nil, name: sample.name)
            }
            Self.append(embedding, to: &embeddings)
        }
        self.samples = samples
        self.options = options
        self.classNames = names
        self.sampleCounts = counts
        self.embeddings = embeddings
        self.sampleClasses = samples.map { classIndex[$0.className] ?? 0 }
    }

    /// The largest confidence a class can have: `min(maxDistanceTopK, meanDistanceTopK)` (10).
    public var confidenceRange: Int { min(options.maxDistanceTopK, options.meanDistanceTopK) }

    /// The largest confidence `className` can reach: its sample count, at most
    /// `confidenceRange` (0 for a class the samples lack).
    public func maximumConfidence(of className: String) -> Int {
        min(confidenceRange, sampleCounts[className] ?? 0)
    }

    /// Throws unless repetitions of `className` can be counted with `enterThreshold`: the class
    /// must be one of the samples' (`.unknownClass`) and its confidence must be able to rise
    /// above the threshold (`.unreachableThreshold`).
    package func checkCountable(_ className: String, enterThreshold: Float) throws {
        guard sampleCounts[className] != nil else {
            throw PoseClassificationError.unknownClass(className, known: classNames)
        }
        let maximum = maximumConfidence(of: className)
        guard Float(maximum) > enterThreshold else {
            throw PoseClassificationError.unreachableThreshold(
                className: className, maximumConfidence: maximum, enterThreshold: enterThreshold)
        }
    }

    /// The classification of a `PoseLandmarker` pose: its landmarks (normalised to the upright
    /// image) and that image's size in pixels, converted as `PoseSample` converts them.
    public func classify(landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> PoseClassification {
        classify(PoseSample.pixels(landmarks, imageWidth: imageWidth, imageHeight: imageHeight))
    }

    /// The classification of 33 landmarks in pixels (ML Kit's coordinates, as
    /// `PoseSample.landmarks`). Empty when they are not 33 or give no usable pose (ML Kit
    /// returns an empty result for a pose without landmarks).
    public func classify(_ landmarks: [SIMD3<Float>]) -> PoseClassification {
        guard let embedding = PoseEmbedding(landmarks: landmarks, torsoMultiplier: options.torsoMultiplier) else {
            return PoseClassification()
        }
        var query: [Float] = [], mirrored: [Float] = []
        Self.append(embedding, to: &query)
        Self.append(embedding.mirrored, to: &mirrored)

        let nearestByMax = nearest(options.maxDistanceTopK, among: samples.indices) {
            maxDistance(sample: $0, query, mirrored, stopAt: $1)
        }
        let nearestByMean = nearest(options.meanDistanceTopK, among: nearestByMax) {
            sample, _ in meanDistance(sample: sample, query, mirrored)
        }
        var confidences: [String: Float] = [:]
        for sample in nearestByMean {
            confidences[classNames[sampleClasses[sample]], default: 0] += 1
        }
        return PoseClassification(confidences: confidences)
    }

    /// The `k` samples of `candidates` with the smallest `distance`, ties to the earlier sample,
    /// in no particular order. `distance` gets the current k-th smallest distance once `k` are
    /// kept and may return any value at or above it as soon as it knows the sample is no nearer.
    private func nearest(
        _ k: Int, among candidates: some Sequence<Int>, distance: (Int, Float) -> Float
    ) -> [Int] {
        // Kept sorted by (distance, index): the last is the one to evict.
        var kept: [(distance: Float, index: Int)] = []
        kept.reserveCapacity(min(k, samples.count) + 1)
        for index in candidates {
            let bound = kept.count == k ? kept[k - 1].distance : .infinity
            let d = distance(index, bound)
            if kept.count == k {
                let worst = kept[k - 1]
                guard d < worst.distance || (d == worst.distance && index < worst.index) else { continue }
                kept.removeLast()
            }
            var position = kept.count
            while position > 0, d < kept[position - 1].distance
                || (d == kept[position - 1].distance && index < kept[position - 1].index) {
                position -= 1
            }
            kept.insert((d, index), at: position)
        }
        return kept.map(\.index)
    }

    /// ML Kit's max distance: the largest weighted per-coordinate difference, for the pose and
    /// for its mirror image, the smaller of the two. Stops early (returning a value ≥ `bound`)
    /// once both have reached `bound`, which can only grow.
    private func maxDistance(sample: Int, _ query: [Float], _ mirrored: [Float], stopAt bound: Float) -> Float {
        let weights = options.axisWeights
        let start = sample * Self.embeddingLength
        var original: Float = 0, flipped: Float = 0
        embeddings.withUnsafeBufferPointer { e in
            query.withUnsafeBufferPointer { q in
                mirrored.withUnsafeBufferPointer { m in
                    var offset = 0
                    while offset < Self.embeddingLength {
                        for axis in 0..<3 {
                            let s = e[start + offset + axis]
                            original = max(original, abs((s - q[offset + axis]) * weights[axis]))
                            flipped = max(flipped, abs((s - m[offset + axis]) * weights[axis]))
                        }
                        offset += 3
                        if original >= bound, flipped >= bound { return }
                    }
                }
            }
        }
        return min(original, flipped)
    }

    /// ML Kit's mean distance: the sum of the weighted absolute differences (per vector x + y +
    /// z, then over the vectors), the smaller of pose and mirror image, divided by twice the
    /// number of vectors (ML Kit's divisor).
    private func meanDistance(sample: Int, _ query: [Float], _ mirrored: [Float]) -> Float {
        let weights = options.axisWeights
        let start = sample * Self.embeddingLength
        var original: Float = 0, flipped: Float = 0
        var offset = 0
        while offset < Self.embeddingLength {
            var o: Float = 0, f: Float = 0
            for axis in 0..<3 {
                let s = embeddings[start + offset + axis]
                o += abs((s - query[offset + axis]) * weights[axis])
                f += abs((s - mirrored[offset + axis]) * weights[axis])
            }
            original += o
            flipped += f
            offset += 3
        }
        return min(original, flipped) / Float(PoseEmbedding.vectorCount * 2)
    }

    private static func append(_ embedding: PoseEmbedding, to values: inout [Float]) {
        for vector in embedding.vectors {
            values.append(vector.x)
            values.append(vector.y)
            values.append(vector.z)
        }
    }
}
