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

    /// The state that starts and ends with each input.
    func inputState<Task>() -> TaskFrameProcessor<Task>.InputState {
        TaskFrameProcessor<Task>.InputState(begin: { [tracker] in tracker.reset() }, end: { [self] in countsLine() })
    }

    /// "squats_down: 2", or with several people "pose 1: squats_down: 2; pose 2: squats_down: 0";
    /// for an input without a pose, every counted class at 0.
    func countsLine() -> String {
        let people = tracker.allRepetitionCounts
        guard !people.isEmpty else {
            return Self.countsText(Dictionary(uniqueKeysWithValues: tracker.countedClasses.map { ($0, 0) }))
        }
        if people.count == 1, let only = people.first { return Self.countsText(only.value) }
        return people.keys.sorted().map { "pose \($0): \(Self.countsText(people[$0] ?? [:]))" }.joined(separator: "; ")
    }

    /// "squats_down: 2, squats_up: 0": counts by class name.
    static func countsText(_ counts: [String: Int]) -> String {
        counts.keys.sorted().map { "\($0): \(counts[$0] ?? 0)" }.joined(separator: ", ")
    }
}
