import Foundation
import VisionTasks

/// The pose classification of one `vision-tasks pose --classify` run: the tracker, started
/// afresh for each input (each video, stream or photo counts from 0), fed every result, and
/// asked for the counts when an input ends. Live results arrive on the task's queue, so the
/// tracker (which locks) is shared by reference.
final class PoseRepetitionSession: Sendable {
    let tracker: PoseClassificationTracker

    init(tracker: PoseClassificationTracker) {
        self.tracker = tracker
    }

    /// Each pose's classification and counts after `result` (a frame of `image`'s size).
    func classify(_ result: PoseLandmarkerResult, image: MPImage) -> [TrackedPoseClassification] {
        tracker.process(result, imageWidth: image.width, imageHeight: image.height)
    }

    /// The state that starts and ends with each input.
    func inputState<Task>() -> TaskFrameProcessor<Task>.InputState {
        TaskFrameProcessor<Task>.InputState(begin: { [tracker] _ in tracker.reset() }, end: { [self] in countsLine() })
    }

    /// "squats_down: 2", or with several people "pose 1: squats_down: 2; pose 2: squats_down: 0";
    /// for an input without a pose, every counted class at 0.
    func countsLine() -> String {
        func counts(_ counts: [String: Int]) -> String {
            counts.keys.sorted().map { "\($0): \(counts[$0] ?? 0)" }.joined(separator: ", ")
        }
        let people = tracker.allRepetitionCounts
        guard !people.isEmpty else {
            return counts(Dictionary(uniqueKeysWithValues: tracker.countedClasses.map { ($0, 0) }))
        }
        if people.count == 1, let only = people.first { return counts(only.value) }
        return people.keys.sorted().map { "pose \($0): \(counts(people[$0] ?? [:]))" }.joined(separator: "; ")
    }
}
