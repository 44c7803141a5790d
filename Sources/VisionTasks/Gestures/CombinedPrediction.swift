/// MediaPipe's CombinedPredictionCalculator as the gesture recognizer configures it
/// (background label "None", no class thresholds; docs/pipelines.md §4 step 5): the first
/// classifier (custom first, then canned) whose best class is not "None" gives the gesture;
/// otherwise the first classifier's "None". Classifiers whose lists are empty (everything
/// filtered out) are skipped.
enum CombinedPrediction {
    static let backgroundLabel = "None"

    /// The gesture, or nil when every list is empty.
    static func combine(_ lists: [[Classification]]) -> Classification? {
        var first: Classification?
        for list in lists where !list.isEmpty {
            // The argmax as MediaPipe takes it: starting from score 0, a class replaces the
            // best only when strictly higher. A list of zero scores yields an unnamed class.
            var best = Classification(index: -1, score: 0, label: nil, displayName: nil)
            for classification in list where best.score < classification.score {
                best = classification
            }
            // The winning category carries only the label and the score.
            let prediction = Classification(index: -1, score: best.score, label: best.label, displayName: nil)
            if (prediction.label ?? "") != backgroundLabel { return prediction }
            if first == nil { first = prediction }
        }
        return first
    }
}
