import LiteInterpreter

/// MediaPipe's SingleHandGestureRecognizerGraph (docs/pipelines.md §4): one hand's
/// landmarks, handedness and world landmarks → gesture embedding → the custom classifier (when
/// the bundle has one) and the canned one → the combined prediction.
///
/// Owns its interpreters; use it from one thread at a time.
final class HandGestureRecognizerGraph {
    /// Member names in a gesture recognizer bundle (`hand_gesture_recognizer.task`).
    static let embedderMember = "gesture_embedder.tflite"
    static let cannedClassifierMember = "canned_gesture_classifier.tflite"
    static let customClassifierMember = "custom_gesture_classifier.tflite"

    private let embedder: Interpreter
    private let embeddingSize: Int
    /// Custom first, then canned (MediaPipe's order).
    private let classifiers: [GestureClassifier]

    /// Whether a custom classifier is used besides the canned one.
    let hasCustomClassifier: Bool

    init(
        asset: ModelAsset, cannedOptions: ClassificationPostprocessor.Settings?,
        customOptions: ClassificationPostprocessor.Settings?
    ) throws {
        let embedderModel = try asset.model(named: Self.embedderMember)
        let shapes = embedderModel.inputs.map(\.elementCount)
        guard shapes == [63, 1, 63], embedderModel.outputs.count == 1,
            embedderModel.outputs[0].elementCount > 0
        else {
            throw TasksError.invalidArgument(
                "Gesture embedder: expected inputs of 21×3, 1 and 21×3 values (hand, handedness, world hand) and one output, got inputs \(embedderModel.inputs.map(\.shape)), outputs \(embedderModel.outputs.map(\.shape)).")
        }
        embeddingSize = embedderModel.outputs[0].elementCount
        do {
            embedder = try Interpreter(model: embedderModel, options: Interpreter.Options(threadCount: 1))
        } catch {
            throw TasksError.invalidArgument("Gesture embedder cannot run: \(error)")
        }
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
        let landmarks = try GestureEmbeddingInput.landmarks(
            hand.landmarks, imageWidth: imageWidth, imageHeight: imageHeight)
        let world = try GestureEmbeddingInput.worldLandmarks(hand.worldLandmarks)
        let right = try GestureEmbeddingInput.rightHandScore([hand.handedness])
        try copy(landmarks, toInput: 0)
        try copy([right], toInput: 1)
        try copy(world, toInput: 2)
        try embedder.invoke()
        let lists = try embedder.withUnsafeOutputBuffer(at: 0) { embedding in
            try classifiers.map { try $0.classify(embedding) }
        }
        guard let gesture = CombinedPrediction.combine(lists) else { return nil }
        // MediaPipe's API layer reports gestures with index -1 (`kDefaultGestureIndex`).
        return ResultCategory(index: -1, score: gesture.score, categoryName: gesture.label, displayName: nil)
    }

    private func copy(_ values: [Float], toInput index: Int) throws {
        try embedder.withUnsafeMutableInputBuffer(at: index) { input in
            guard input.count == values.count else {
                throw TasksError.internalError(
                    "Gesture embedder input \(index) holds \(input.count) values, expected \(values.count).")
            }
            for i in values.indices { input[i] = values[i] }
        }
    }
}
