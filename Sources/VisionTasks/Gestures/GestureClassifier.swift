import LiteInterpreter

/// One gesture classifier model (canned or custom) with its post-processing: embedding in,
/// categories out (MediaPipe's `GetGestureClassificationList`).
///
/// Owns its interpreter; use it from one thread at a time.
final class GestureClassifier {
    private let interpreter: Interpreter
    private let postprocessor: ClassificationPostprocessor
    private let embeddingSize: Int

    /// - Parameters:
    ///   - settings: the task's classifier options for this classifier, or nil (MediaPipe's
    ///     defaults from the model's metadata).
    ///   - fallbackLabels: labels for a model without metadata labels.
    init(
        model: Model, embeddingSize: Int, settings: ClassificationPostprocessor.Settings?,
        fallbackLabels: [String]?, name: String
    ) throws {
        guard model.inputs.count == 1, model.inputs[0].elementCount == embeddingSize else {
            throw TasksError.invalidArgument(
                "\(name): expected one input of \(embeddingSize) values (the gesture embedding), got \(model.inputs.map(\.shape)).")
        }
        guard model.outputs.count == 1, model.outputs[0].elementCount >= 1 else {
            throw TasksError.invalidArgument(
                "\(name): expected one output of class scores, got \(model.outputs.map(\.shape)).")
        }
        postprocessor = try ClassificationPostprocessor(
            model: model, outputIndex: 0, settings: settings, fallbackLabels: fallbackLabels, name: name)
        self.embeddingSize = embeddingSize
        do {
            interpreter = try Interpreter(model: model, options: Interpreter.Options(threadCount: 1))
        } catch {
            throw TasksError.invalidArgument("\(name) cannot run: \(error)")
        }
    }

    /// The categories for one embedding, best first (possibly empty).
    func classify(_ embedding: UnsafeBufferPointer<Float>) throws -> [Classification] {
        try interpreter.withUnsafeMutableInputBuffer(at: 0) { input in
            for i in 0..<min(input.count, embedding.count) { input[i] = embedding[i] }
        }
        try interpreter.invoke()
        return try interpreter.withUnsafeOutputBuffer(at: 0) { postprocessor.classify($0) }
    }
}
