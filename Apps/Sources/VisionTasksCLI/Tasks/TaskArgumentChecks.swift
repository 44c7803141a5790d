import ArgumentParser

/// The checks on the options every landmarking command has, worded the same for each.
enum TaskArgumentChecks {
    /// `--num-hands`, `--num-poses` at least 1; every confidence (flag name, value) in 0...1.
    static func check(count: Int, flag: String, confidences: KeyValuePairs<String, Float>) throws {
        guard count >= 1 else { throw ValidationError("\(flag) must be at least 1") }
        for (name, value) in confidences where !(value >= 0 && value <= 1) {
            throw ValidationError("\(name) must be between 0 and 1")
        }
    }
}
