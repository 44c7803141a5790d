/// The settings of `PoseClassifier`, with the defaults of ML Kit's pose classification sample.
public struct PoseClassifierOptions: Sendable, Hashable {
    /// First stage: the samples kept by their largest per-coordinate distance (default 30).
    /// Removes samples that are close on average but have a joint bent the other way.
    public var maxDistanceTopK = 30
    /// Second stage: of those, the samples kept by their mean distance (default 10). A class's
    /// confidence is how many of these are of it, so confidences range from 0 to
    /// `min(maxDistanceTopK, meanDistanceTopK)`.
    public var meanDistanceTopK = 10
    /// Weights of the embedding's x, y and z in both distances (default 1, 1, 0.2: z is the
    /// least accurate coordinate).
    public var axisWeights = SIMD3<Float>(1, 1, 0.2)
    /// The pose is at least this many torso sizes large when it is scaled (default 2.5; see
    /// `PoseEmbedding`).
    public var torsoMultiplier = PoseEmbedding.defaultTorsoMultiplier

    /// ML Kit's defaults.
    public init() {}

    /// `.invalidOptions` for values no classifier can use.
    func validate() throws {
        func check(_ ok: Bool, _ message: String) throws {
            if !ok { throw PoseClassificationError.invalidOptions("PoseClassifierOptions: \(message)") }
        }
        try check(maxDistanceTopK >= 1, "maxDistanceTopK must be at least 1.")
        try check(meanDistanceTopK >= 1, "meanDistanceTopK must be at least 1.")
        let weights = [axisWeights.x, axisWeights.y, axisWeights.z]
        try check(weights.allSatisfy { $0.isFinite && $0 >= 0 }, "axisWeights must be finite and at least 0.")
        try check(torsoMultiplier.isFinite && torsoMultiplier > 0, "torsoMultiplier must be finite and above 0.")
    }
}
