/// An independent reference of ML Kit's pose classifier for the tests: plain single-precision
/// arithmetic written from the description of ML Kit's sample (`PoseEmbedding`,
/// `PoseClassifier`, `Utils`), sharing no code with `VisionTasks.PoseClassifier`. Where that
/// type negates x to mirror an embedding, this one mirrors the landmarks and embeds them again;
/// where it keeps the nearest samples in a bounded list and stops early, this one sorts every
/// sample by distance (ties: the earlier sample).
public struct ReferencePoseClassifier {
    public typealias Point = (x: Float, y: Float, z: Float)

    private let embeddings: [[Point]]
    private let classes: [String]

    /// Samples as 33 points each (pixels) with their classes.
    public init(samples: [[Point]], classes: [String]) {
        embeddings = samples.map { Self.embedding($0) }
        self.classes = classes
    }

    /// For each class among the 10 nearest (after the 30 nearest by maximum distance), how many.
    public func classify(_ landmarks: [Point]) -> [String: Float] {
        let original = Self.embedding(landmarks)
        let flipped = Self.embedding(landmarks.map { (x: $0.x * -1, y: $0.y * 1, z: $0.z * 1) })
        let weights: Point = (1, 1, 0.2)

        func weightedDifference(_ a: Point, _ b: Point) -> Point {
            // ML Kit: multiply(subtract(a, b), weights), where subtract(a, b) is b - a.
            ((b.x - a.x) * weights.x, (b.y - a.y) * weights.y, (b.z - a.z) * weights.z)
        }
        var byMax: [(distance: Float, index: Int)] = []
        for (index, sample) in embeddings.enumerated() {
            var originalMax: Float = 0, flippedMax: Float = 0
            for i in 0..<original.count {
                let d1 = weightedDifference(original[i], sample[i])
                let d2 = weightedDifference(flipped[i], sample[i])
                originalMax = max(originalMax, max(abs(d1.x), abs(d1.y), abs(d1.z)))
                flippedMax = max(flippedMax, max(abs(d2.x), abs(d2.y), abs(d2.z)))
            }
            byMax.append((min(originalMax, flippedMax), index))
        }
        let survivors = byMax.sorted { ($0.distance, $0.index) < ($1.distance, $1.index) }.prefix(30)
        var byMean: [(distance: Float, index: Int)] = []
        for survivor in survivors {
            let sample = embeddings[survivor.index]
            var originalSum: Float = 0, flippedSum: Float = 0
            for i in 0..<original.count {
                let d1 = weightedDifference(original[i], sample[i])
                let d2 = weightedDifference(flipped[i], sample[i])
                originalSum += abs(d1.x) + abs(d1.y) + abs(d1.z)
                flippedSum += abs(d2.x) + abs(d2.y) + abs(d2.z)
            }
            byMean.append((min(originalSum, flippedSum) / Float(original.count * 2), survivor.index))
        }
        var confidences: [String: Float] = [:]
        for nearest in byMean.sorted(by: { ($0.distance, $0.index) < ($1.distance, $1.index) }).prefix(10) {
            confidences[classes[nearest.index], default: 0] += 1
        }
        return confidences
    }

    /// ML Kit's normalisation and 23 vectors.
    static func embedding(_ input: [Point]) -> [Point] {
        func average(_ a: Point, _ b: Point) -> Point { ((a.x + b.x) * 0.5, (a.y + b.y) * 0.5, (a.z + b.z) * 0.5) }
        func minus(_ a: Point, _ b: Point) -> Point { (a.x - b.x, a.y - b.y, a.z - b.z) }
        func times(_ a: Point, _ s: Float) -> Point { (a.x * s, a.y * s, a.z * s) }
        func norm2D(_ a: Point) -> Float { Float((Double(a.x) * Double(a.x) + Double(a.y) * Double(a.y)).squareRoot()) }
        let leftHip = 23, rightHip = 24, leftShoulder = 11, rightShoulder = 12

        let centre = average(input[leftHip], input[rightHip])
        var p = input.map { minus($0, centre) }
        let hips = average(p[leftHip], p[rightHip])
        let shoulders = average(p[leftShoulder], p[rightShoulder])
        var size = norm2D(minus(shoulders, hips)) * 2.5
        for q in p { size = max(size, norm2D(minus(q, hips))) }
        let inverse = 1 / size
        p = p.map { times(times($0, inverse), 100) }

        // (from, to) by BlazePose index; -1 is the hips' midpoint, -2 the shoulders'.
        let pairs = [
            (-1, -2), (11, 13), (12, 14), (13, 15), (14, 16), (23, 25), (24, 26), (25, 27), (26, 28),
            (11, 15), (12, 16), (23, 27), (24, 28), (23, 15), (24, 16), (11, 27), (12, 28), (23, 15), (24, 16),
            (13, 14), (25, 26), (15, 16), (27, 28),
        ]
        func point(_ i: Int) -> Point {
            switch i {
            case -1: return average(p[leftHip], p[rightHip])
            case -2: return average(p[leftShoulder], p[rightShoulder])
            default: return p[i]
            }
        }
        return pairs.map { minus(point($0.1), point($0.0)) }
    }
}
