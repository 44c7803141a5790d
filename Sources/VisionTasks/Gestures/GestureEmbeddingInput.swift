import Foundation

/// The gesture embedder's three inputs, prepared from one hand as MediaPipe's
/// LandmarksToMatrixCalculator and HandednessToMatrixCalculator do (docs/pipelines.md §4
/// steps 1–2), with their float and double steps.
enum GestureEmbeddingInput {
    /// The image landmarks as the embedder's `hand` input, 21 × (x, y, z): aspect-ratio
    /// correction for the image size, rotation by the image rect's rotation (0 for upright
    /// input), then object normalisation about the wrist.
    static func landmarks(
        _ landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int, rotation: Float = 0
    ) throws -> [Float] {
        let width = Float(imageWidth), height = Float(imageHeight)
        let maxDimension = max(width, height)
        guard maxDimension > 0 else {
            throw TasksError.invalidArgument("Invalid image dimensions: [\(imageWidth),\(imageHeight)]")
        }
        let widthScale = Double(width / maxDimension)
        let heightScale = Double(height / maxDimension)
        var points = landmarks.map { lm in
            (
                x: Float((Double(lm.x) - 0.5) * widthScale + 0.5),
                y: Float((Double(lm.y) - 0.5) * heightScale + 0.5),
                z: lm.z
            )
        }
        points = rotated(points, by: rotation)
        return try normalized(points)
    }

    /// The world landmarks as the embedder's `world_hand` input, 21 × (x, y, z): rotation,
    /// then object normalisation (no aspect-ratio step).
    static func worldLandmarks(_ landmarks: [Landmark], rotation: Float = 0) throws -> [Float] {
        try normalized(rotated(landmarks.map { (x: $0.x, y: $0.y, z: $0.z) }, by: rotation))
    }

    /// The embedder's `handedness` input: the probability that the hand is a right hand, from
    /// the highest-scoring handedness category (`GetRightHandScore`).
    static func rightHandScore(_ handedness: [ResultCategory]) throws -> Float {
        var best: ResultCategory?
        for category in handedness where best.map({ $0.score < category.score }) ?? true {
            best = category
        }
        guard let best, best.score >= 0.5, best.score <= 1 else {
            throw TasksError.internalError(
                "Handedness must have a top score in [0.5, 1], got \(handedness.map(\.score)).")
        }
        switch best.categoryName?.lowercased() {
        case "left": return 1 - best.score
        case "right": return best.score
        default:
            throw TasksError.internalError("Unrecognized handedness: \(best.categoryName ?? "")")
        }
    }

    private typealias Point = (x: Float, y: Float, z: Float)

    /// `RotateLandmarks`: about (0.5, 0.5), with `cos(r)` and `sin(−r)` in float.
    private static func rotated(_ points: [Point], by rotation: Float) -> [Point] {
        let c = cosf(rotation)
        let s = sinf(-rotation)
        return points.map { p in
            let x = Float(Double(p.x) - 0.5)
            let y = Float(Double(p.y) - 0.5)
            return (
                x: Float(Double(x * c - y * s) + 0.5),
                y: Float(Double(y * c + x * s) + 0.5),
                z: p.z
            )
        }
    }

    /// `NormalizeObject` with origin landmark 0, laid out landmark by landmark (the 3 × n
    /// matrix copied column-major).
    private static func normalized(_ points: [Point]) throws -> [Float] {
        guard let origin = points.first else {
            throw TasksError.internalError("Expected non-zero number of input landmarks.")
        }
        // MediaPipe starts the maxima at FLT_MIN (the smallest positive float).
        var minX = Float.greatestFiniteMagnitude, maxX = Float.leastNormalMagnitude
        var minY = Float.greatestFiniteMagnitude, maxY = Float.leastNormalMagnitude
        var shifted: [Point] = []
        shifted.reserveCapacity(points.count)
        for p in points {
            let q = (x: p.x - origin.x, y: p.y - origin.y, z: p.z - origin.z)
            minX = min(minX, q.x)
            maxX = max(maxX, q.x)
            minY = min(minY, q.y)
            maxY = max(maxY, q.y)
            shifted.append(q)
        }
        let epsilon: Float = 1e-5
        let scale = max(maxX - minX, maxY - minY) + epsilon
        var out: [Float] = []
        out.reserveCapacity(points.count * 3)
        for q in shifted {
            out.append(q.x / scale)
            out.append(q.y / scale)
            out.append(q.z / scale)
        }
        return out
    }
}
