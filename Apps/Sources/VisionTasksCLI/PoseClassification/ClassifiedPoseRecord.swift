import Foundation
import TaskRunner
import VisionTasks

/// A pose record with ML Kit's pose classification and repetition counts beside the landmarks
/// (`vision-tasks pose --classify`): the `PoseRecord` keys, then `classifications`, one per
/// pose in the order of `landmarks`, e.g.
/// `{"poseIdentifier": 1, "classification": {"confidences": {"squats_down": 9, "squats_up": 1}},
/// "smoothedClassification": {...}, "repetitionCounts": {"squats_down": 2}, "completedRepetitions": []}`.
struct ClassifiedPoseRecord: Encodable {
    var pose: PoseRecord
    var classifications: [TrackedPoseClassification]

    private enum CodingKeys: String, CodingKey {
        case classifications
    }

    func encode(to encoder: any Encoder) throws {
        try pose.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(classifications, forKey: .classifications)
    }
}

extension TrackedPoseClassification {
    /// "squats_down 9.0/10": the smoothed classification's top class and its confidence.
    func topClass(confidenceRange: Int) -> String {
        guard let top = smoothedClassification.maxConfidenceClass else { return "no class" }
        let confidence = smoothedClassification.confidences[top] ?? 0
        return "\(top) \(String(format: "%.1f", confidence))/\(confidenceRange)"
    }

    /// "squats_down 9.0/10, squats_down: 2": the top class, then the counts.
    func summary(confidenceRange: Int) -> String {
        repetitionCounts.isEmpty
            ? topClass(confidenceRange: confidenceRange)
            : topClass(confidenceRange: confidenceRange) + ", " + PoseRepetitionSession.countsText(repetitionCounts)
    }
}
