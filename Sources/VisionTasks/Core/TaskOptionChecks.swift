/// MediaPipe's checks on the option values the landmarking tasks share (`numHands`,
/// `numPoses`, the confidence thresholds), in one place so that every task refuses the same
/// values with the same words. Messages name the Swift option.
enum TaskOptionChecks {
    /// A number of objects to find (`numHands`, `numPoses`): at least 1.
    static func checkCount(_ value: Int, option name: String) throws {
        guard value >= 1 else {
            throw TasksError.invalidArgument("Invalid `\(name)` option: \(value); it must be at least 1.")
        }
    }

    /// Confidence thresholds, as (option name, value): each in 0...1 (NaN is refused). The
    /// first bad one is reported.
    static func checkConfidences(_ values: KeyValuePairs<String, Float>) throws {
        for (name, value) in values where !(value >= 0 && value <= 1) {
            throw TasksError.invalidArgument(
                "Invalid `\(name)` option: \(value); value must be in the range [0.0, 1.0].")
        }
    }
}
