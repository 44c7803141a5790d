import Foundation

/// ML Kit's pose embedding (the pose classification sample's `PoseEmbedding`): 33 landmarks
/// turned into 23 difference vectors that do not depend on where the person stands or how
/// large they appear.
///
/// From the landmarks (pixels of the upright image, `z` in the scale of `x`, in `PoseLandmark`
/// order, which is ML Kit's):
///
/// 1. Translation: every landmark minus the midpoint of the hips.
/// 2. Scale: divided by the pose size, the larger of `torsoMultiplier` (2.5) × the torso size
///    (hips' midpoint to shoulders' midpoint) and the largest distance of any landmark from the
///    hips' midpoint (both in x and y only), then multiplied by 100.
/// 3. The 23 vectors (`vectorPairs`): the torso, each limb segment, two-, four- and five-joint
///    spans, and four cross-body pairs, each the second point minus the first.
///
/// The arithmetic is single precision in ML Kit's order of operations, so that the same
/// landmarks give the same embedding bit for bit.
public struct PoseEmbedding: Sendable, Hashable {
    /// The 23 vectors, in `vectorPairs` order.
    public let vectors: [SIMD3<Float>]

    /// ML Kit's torso multiplier: a pose is at least 2.5 torso sizes large.
    public static let defaultTorsoMultiplier: Float = 2.5

    /// The number of vectors (23).
    public static let vectorCount = 23

    /// One end of an embedding vector: a landmark, or the midpoint of the hips or shoulders.
    public enum Point: Sendable, Hashable {
        /// A landmark.
        case landmark(PoseLandmark)
        /// The midpoint of the left and right hips.
        case hipsMidpoint
        /// The midpoint of the left and right shoulders.
        case shouldersMidpoint
    }

    /// The 23 vectors as (from, to) pairs, in ML Kit's order. ML Kit lists left hip to left
    /// wrist (and right) twice, as a four-joint and as a five-joint span; so does this table.
    public static let vectorPairs: [(from: Point, to: Point)] = {
        let pairs: [(PoseLandmark, PoseLandmark)] = [
            // One joint.
            (.leftShoulder, .leftElbow), (.rightShoulder, .rightElbow),
            (.leftElbow, .leftWrist), (.rightElbow, .rightWrist),
            (.leftHip, .leftKnee), (.rightHip, .rightKnee),
            (.leftKnee, .leftAnkle), (.rightKnee, .rightAnkle),
            // Two joints.
            (.leftShoulder, .leftWrist), (.rightShoulder, .rightWrist),
            (.leftHip, .leftAnkle), (.rightHip, .rightAnkle),
            // Four joints.
            (.leftHip, .leftWrist), (.rightHip, .rightWrist),
            // Five joints.
            (.leftShoulder, .leftAnkle), (.rightShoulder, .rightAnkle),
            (.leftHip, .leftWrist), (.rightHip, .rightWrist),
            // Cross body.
            (.leftElbow, .rightElbow), (.leftKnee, .rightKnee),
            (.leftWrist, .rightWrist), (.leftAnkle, .rightAnkle),
        ]
        return [(from: .hipsMidpoint, to: .shouldersMidpoint)]
            + pairs.map { (from: Point.landmark($0.0), to: Point.landmark($0.1)) }
    }()

    /// The embedding of `landmarks` (33, pixels; `z` in the scale of `x`), or nil when there
    /// are not 33 of them or they give no usable pose: all at one point (no size to scale by),
    /// or so large that the arithmetic overflows.
    public init?(landmarks: [SIMD3<Float>], torsoMultiplier: Float = PoseEmbedding.defaultTorsoMultiplier) {
        guard landmarks.count == PoseLandmark.count,
              let vectors = Self.vectors(of: landmarks, torsoMultiplier: torsoMultiplier) else { return nil }
        self.vectors = vectors
    }

    /// The same embedding mirrored left to right: ML Kit's classifier compares each pose as it
    /// is and mirrored. Mirroring the landmarks (x × −1) before embedding gives exactly the
    /// embedding with its x components negated: every step is symmetric in the sign of x.
    public var mirrored: PoseEmbedding {
        PoseEmbedding(vectors: vectors.map { SIMD3(-$0.x, $0.y, $0.z) })
    }

    private init(vectors: [SIMD3<Float>]) {
        self.vectors = vectors
    }

    private static func vectors(of landmarks: [SIMD3<Float>], torsoMultiplier: Float) -> [SIMD3<Float>]? {
        let hips = (PoseLandmark.leftHip.rawValue, PoseLandmark.rightHip.rawValue)
        let shoulders = (PoseLandmark.leftShoulder.rawValue, PoseLandmark.rightShoulder.rawValue)
        let centre = midpoint(landmarks[hips.0], landmarks[hips.1])
        var points = landmarks.map { $0 - centre }

        // The pose size, measured from the translated hips' midpoint (ML Kit computes it again
        // after translating; it is zero up to rounding).
        let hipsMidpoint = midpoint(points[hips.0], points[hips.1])
        let shouldersMidpoint = midpoint(points[shoulders.0], points[shoulders.1])
        var size = length2D(shouldersMidpoint - hipsMidpoint) * torsoMultiplier
        for point in points {
            let distance = length2D(point - hipsMidpoint)
            if distance > size { size = distance }
        }
        guard size > 0, size.isFinite else { return nil }
        let scale = 1 / size
        for index in points.indices {
            points[index] = points[index] * scale * 100
        }

        func position(_ point: Point) -> SIMD3<Float> {
            switch point {
            case .landmark(let landmark): return points[landmark.rawValue]
            case .hipsMidpoint: return midpoint(points[hips.0], points[hips.1])
            case .shouldersMidpoint: return midpoint(points[shoulders.0], points[shoulders.1])
            }
        }
        let vectors = vectorPairs.map { position($0.to) - position($0.from) }
        for vector in vectors where !(vector.x.isFinite && vector.y.isFinite && vector.z.isFinite) { return nil }
        return vectors
    }

    /// (a + b) × 0.5, per coordinate (ML Kit's `average`).
    private static func midpoint(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
        (a + b) * 0.5
    }

    /// The length of (x, y), computed in double and rounded to single precision (ML Kit's
    /// `(float) Math.hypot(x, y)`).
    private static func length2D(_ v: SIMD3<Float>) -> Float {
        Float(hypot(Double(v.x), Double(v.y)))
    }
}
