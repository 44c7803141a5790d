/// ML Kit's smoothing of pose classifications over time (the sample's `EMASmoothing`): an
/// exponential moving average over a window of the latest results.
///
/// Each class's smoothed confidence is the weighted mean of its confidence in the last
/// `windowSize` (10) classifications, the newest weighted 1 and each older one `1 − alpha`
/// (0.8) times the next newer (a class missing from a classification counts 0 there). An
/// empty classification (no pose in that frame) enters the window too, as in ML Kit, so the
/// confidences fade while nobody is seen. Single-precision arithmetic in ML Kit's order.
///
/// ```swift
/// var smoothing = try EMASmoothing()
/// let smoothed = smoothing.smooth(PoseClassification(confidences: ["squats_down": 10]))
/// print(smoothed.confidence(of: "squats_down"))   // 10: one frame so far
/// ```
public struct EMASmoothing: Sendable, Hashable {
    /// The settings.
    public let options: EMASmoothingOptions
    /// The window, newest first.
    private var window: [PoseClassification] = []

    /// A smoothing with an empty window. Throws `.invalidOptions` for a window under 1 or an
    /// alpha outside 0...1.
    public init(options: EMASmoothingOptions = EMASmoothingOptions()) throws {
        try options.validate()
        self.options = options
    }

    /// Adds `classification` to the window (dropping the oldest when full) and returns the
    /// smoothed classification: every class seen in the window, with its weighted mean.
    public mutating func smooth(_ classification: PoseClassification) -> PoseClassification {
        if window.count == options.windowSize { window.removeLast() }
        window.insert(classification, at: 0)
        var classes = Set<String>()
        for result in window { classes.formUnion(result.confidences.keys) }
        let decay = 1.0 - Double(options.alpha)
        var smoothed: [String: Float] = [:]
        for name in classes {
            var factor: Float = 1, top: Float = 0, bottom: Float = 0
            for result in window {
                top += factor * result.confidence(of: name)
                bottom += factor
                // ML Kit: (float) (factor * (1.0 - alpha)), the product in double.
                factor = Float(Double(factor) * decay)
            }
            smoothed[name] = top / bottom
        }
        return PoseClassification(confidences: smoothed)
    }

    /// Empties the window (a new stream).
    public mutating func reset() {
        window.removeAll()
    }
}
