/// ML Kit's repetition counter (the sample's `RepetitionCounter`): counts how often a pose
/// class is entered and left, such as `squats_down` for squats.
///
/// A repetition enters when the class's confidence rises above `enterThreshold` (6) and counts
/// when the confidence then falls below `exitThreshold` (4): a squat counts as the person rises
/// out of it. A repetition that was entered and not left (the clip ends at the bottom of a
/// squat) is not counted.
///
/// ```swift
/// var counter = try RepetitionCounter(className: "squats_down")
/// for confidence: Float in [2, 8, 9, 3, 1] {
///     counter.add(PoseClassification(confidences: ["squats_down": confidence]))
/// }
/// print(counter.count)   // 1
/// ```
public struct RepetitionCounter: Sendable, Hashable {
    /// The class counted.
    public let className: String
    /// The thresholds.
    public let options: RepetitionCounterOptions
    /// Repetitions counted so far.
    public private(set) var count = 0
    /// Whether a repetition has been entered and not yet left.
    public private(set) var isInPose = false

    /// A counter of `className` at zero. Throws `.invalidOptions` for thresholds that are not
    /// finite or an exit threshold above the enter threshold.
    public init(className: String, options: RepetitionCounterOptions = RepetitionCounterOptions()) throws {
        try options.validate()
        self.className = className
        self.options = options
    }

    /// Reads one (smoothed) classification; returns the count.
    @discardableResult
    public mutating func add(_ classification: PoseClassification) -> Int {
        let confidence = classification.confidence(of: className)
        if !isInPose {
            isInPose = confidence > options.enterThreshold
        } else if confidence < options.exitThreshold {
            count += 1
            isInPose = false
        }
        return count
    }

    /// Back to zero, outside the pose.
    public mutating func reset() {
        count = 0
        isInPose = false
    }
}
