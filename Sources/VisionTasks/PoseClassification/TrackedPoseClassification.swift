/// One person's classification and repetition counts in one frame, from
/// `PoseClassificationTracker`.
public struct TrackedPoseClassification: Sendable, Hashable, Codable {
    /// The person's pose identifier (`PoseLandmarkerResult.poseIdentifiers`), or in image mode,
    /// where results carry none, the pose's index in the result.
    public var poseIdentifier: Int
    /// This frame's classification: for each class, how many of the nearest samples are of it
    /// (0 to the classifier's `confidenceRange`, 10).
    public var classification: PoseClassification
    /// The person's classification smoothed over the latest frames (`EMASmoothing`): what the
    /// counts follow.
    public var smoothedClassification: PoseClassification
    /// Repetitions counted so far, per counted class (0 included).
    public var repetitionCounts: [String: Int]
    /// The classes whose count rose on this frame (a repetition just completed), by name.
    public var completedRepetitions: [String]

    /// A value from its parts.
    public init(
        poseIdentifier: Int, classification: PoseClassification, smoothedClassification: PoseClassification,
        repetitionCounts: [String: Int], completedRepetitions: [String]
    ) {
        self.poseIdentifier = poseIdentifier
        self.classification = classification
        self.smoothedClassification = smoothedClassification
        self.repetitionCounts = repetitionCounts
        self.completedRepetitions = completedRepetitions
    }
}
