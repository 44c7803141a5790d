/// The settings of `EMASmoothing`, with the defaults of ML Kit's pose classification sample.
public struct EMASmoothingOptions: Sendable, Hashable {
    /// How many of the latest classifications are averaged (default 10).
    public var windowSize = 10
    /// How fast older classifications fade: each is weighted `1 − alpha` times the next newer
    /// one (default 0.2).
    public var alpha: Float = 0.2

    /// ML Kit's defaults.
    public init() {}

    /// `.invalidOptions` for values no smoothing can use.
    func validate() throws {
        guard windowSize >= 1 else {
            throw PoseClassificationError.invalidOptions("EMASmoothingOptions: windowSize must be at least 1.")
        }
        guard alpha.isFinite, (0...1).contains(alpha) else {
            throw PoseClassificationError.invalidOptions("EMASmoothingOptions: alpha must be in 0...1.")
        }
    }
}
