import LiteInterpreter

/// MediaPipe's SingleHandGestureRecognizerGraph (docs/pipelines.md §4): one hand's
/// landmarks, handedness and world landmarks → gesture embedding → the custom classifier (when
/// the bundle has one) and the canned one → the combined prediction.
///
/// Owns its interpreters; use it from one thread at a time.
final class HandGestureRecognizerGraph {
    /// Member names in a gesture recognizer bundle (`hand_gesture_recognizer.task`).
    static let cannedClassifierMember = "canned_gesture_classifier.tflite"
    static let customClassifierMember = "custom_gesture_classifier.tflite"

    private let embedder: GestureEmbedderModel
    /// Custom first, then canned (MediaPipe's order).
    private let classifiers: [GestureClassifier]

    /// Whether a custom classifier is used besides the canned one.
    let hasCustomClassifier: Bool

    init(
        asset: ModelAsset, cannedOptions: ClassificationPostprocessor.Settings?,
        customOptions: ClassificationPostprocessor.Settings?
    ) throws {
        embedder = try GestureEmbedderModel(asset: asset)
        let embeddingSize = embedder.embeddingSize
        var classifiers: [GestureClassifier] = []
        if let customModel = try Self.optionalModel(Self.customClassifierMember, in: asset) {
            classifiers.append(
                try GestureClassifier(
                    model: customModel, embeddingSize: embeddingSize, settings: customOptions,
                    fallbackLabels: nil, name: "Custom gesture classifier"))
        }
        hasCustomClassifier = !classifiers.isEmpty
        classifiers.append(
            try GestureClassifier(
                model: try asset.model(named: Self.cannedClassifierMember), embeddingSize: embeddingSize,
                settings: cannedOptions, fallbackLabels: CannedGesture.allCases.map(\.rawValue),
                name: "Canned gesture classifier"))
        self.classifiers = classifiers
    }

    /// The member `name` of the bundle (or a bundle nested in it) as a model, nil when absent.
    private static func optionalModel(_ name: String, in asset: ModelAsset) throws -> Model? {
        do {
            return try asset.model(named: name)
        } catch TasksError.notFound {
            return nil
        }
    }

    /// The gesture of one hand, or nil when the classifier options filtered out every class.
    func recognize(_ hand: HandLandmarkerGraph.Hand, imageWidth: Int, imageHeight: Int) throws -> ResultCategory? {
        let lists = try embedder.withEmbedding(
            landmarks: hand.landmarks, worldLandmarks: hand.worldLandmarks, handedness: [hand.handedness],
            imageWidth: imageWidth, imageHeight: imageHeight
        ) { embedding in
            try classifiers.map { try $0.classify(embedding) }
        }
        guard let gesture = CombinedPrediction.combine(lists) else { return nil }
        // MediaPipe's API layer reports gestures with index -1 (`kDefaultGestureIndex`).
        return ResultCategory(index: -1, score: gesture.score, categoryName: gesture.label, displayName: nil)
    }
}
