/// What `PoseClassifier` says about one pose (ML Kit's `ClassificationResult`): a confidence
/// per class. Straight from the classifier a confidence is how many of the nearest samples
/// are of the class (0 to `PoseClassifier.confidenceRange`, 10 by default); after
/// `EMASmoothing` it is a fraction in the same range.
///
/// Only classes with a confidence are present (as in ML Kit); `confidence(of:)` is 0 for the
/// others. An empty classification means no pose.
public struct PoseClassification: Sendable, Hashable, Codable {
    /// Confidence per class name.
    public var confidences: [String: Float]

    /// A classification with `confidences` (default: none).
    public init(confidences: [String: Float] = [:]) {
        self.confidences = confidences
    }

    /// The confidence of `className`, 0 when it has none.
    public func confidence(of className: String) -> Float {
        confidences[className] ?? 0
    }

    /// The classes present, by name.
    public var classNames: [String] { confidences.keys.sorted() }

    /// The class with the highest confidence (ties: the first by name), nil when empty.
    public var maxConfidenceClass: String? {
        var best: (name: String, confidence: Float)?
        for name in classNames {
            let confidence = confidences[name] ?? 0
            if best == nil || confidence > best?.confidence ?? 0 { best = (name, confidence) }
        }
        return best?.name
    }

    /// Whether no class has a confidence (no pose).
    public var isEmpty: Bool { confidences.isEmpty }
}
