/// The settings of `RepetitionCounter`, with the defaults of ML Kit's pose classification
/// sample, for confidences in 0...10 (the classifier's default `confidenceRange`).
public struct RepetitionCounterOptions: Sendable, Hashable {
    /// A repetition begins when the class's confidence rises above this (default 6).
    public var enterThreshold: Float = 6
    /// ... and is counted when it then falls below this (default 4).
    public var exitThreshold: Float = 4

    /// ML Kit's defaults.
    public init() {}

    /// `.invalidOptions` for thresholds no counter can use.
    func validate() throws {
        guard enterThreshold.isFinite, exitThreshold.isFinite else {
            throw PoseClassificationError.invalidOptions("RepetitionCounterOptions: the thresholds must be finite.")
        }
        guard exitThreshold <= enterThreshold else {
            throw PoseClassificationError.invalidOptions(
                "RepetitionCounterOptions: exitThreshold (\(exitThreshold)) must not be above enterThreshold (\(enterThreshold)).")
        }
    }
}
