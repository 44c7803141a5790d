/// The settings of `PoseClassificationTracker`: ML Kit's smoothing and counting defaults, the
/// classes to count, and how a person found again continues.
public struct PoseClassificationTrackerOptions: Sendable, Hashable {
    /// The smoothing of each person's classifications (ML Kit's: 10 results, alpha 0.2).
    public var smoothing = EMASmoothingOptions()
    /// The counting thresholds (ML Kit's: enter above 6, count below 4).
    public var repetitions = RepetitionCounterOptions()
    /// The classes whose repetitions are counted, such as `["squats_down"]`. Each must be a
    /// class of the samples with enough samples for its confidence to rise above the enter
    /// threshold (else the tracker's initialiser throws). Default nil: every class that can.
    public var countedClasses: [String]? = nil
    /// A person detected anew (a new pose identifier) continues the smoothing and counts of a
    /// person lost within this many milliseconds, when exactly one person was lost and exactly
    /// one is new in that frame (default 2000; nil: never). With one person in view (the usual
    /// workout) this keeps the count when the landmarker loses the person for a moment and
    /// detects them again under a new identifier; ML Kit's sample, which follows one person,
    /// never resets its count.
    public var resumeWithinMilliseconds: Int? = 2000

    /// The defaults.
    public init() {}
}
