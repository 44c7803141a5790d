import LiteInterpreter

/// The gesture embedder model (`gesture_embedder.tflite`) with MediaPipe's input preparation
/// (docs/pipelines.md §4 steps 1–3): one hand's landmarks, handedness and world landmarks in,
/// the gesture embedding out. `GestureRecognizer` classifies the embedding; `GestureEmbedder`
/// keeps it to train a classifier on.
///
/// Owns its interpreter; use it from one thread at a time.
final class GestureEmbedderModel {
    static let member = "gesture_embedder.tflite"

    private let interpreter: Interpreter
    /// The number of values in an embedding (128 for MediaPipe's embedder).
    let embeddingSize: Int

    init(asset: ModelAsset) throws {
        let model = try asset.model(named: Self.member)
        let shapes = model.inputs.map(\.elementCount)
        guard shapes == [63, 1, 63], model.outputs.count == 1, model.outputs[0].elementCount > 0 else {
            throw TasksError.invalidArgument(
                "Gesture embedder: expected inputs of 21×3, 1 and 21×3 values (hand, handedness, world hand) and one output, got inputs \(model.inputs.map(\.shape)), outputs \(model.outputs.map(\.shape)).")
        }
        embeddingSize = model.outputs[0].elementCount
        do {
            interpreter = try Interpreter(model: model, options: Interpreter.Options(threadCount: 1))
        } catch {
            throw TasksError.invalidArgument("Gesture embedder cannot run: \(error)")
        }
    }

    /// Embeds one hand found in an upright image of `imageWidth` × `imageHeight` pixels and
    /// passes the embedding to `body` (valid only during the call).
    func withEmbedding<R>(
        landmarks: [NormalizedLandmark], worldLandmarks: [Landmark], handedness: [ResultCategory],
        imageWidth: Int, imageHeight: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R
    ) throws -> R {
        try copy(GestureEmbeddingInput.landmarks(landmarks, imageWidth: imageWidth, imageHeight: imageHeight), toInput: 0)
        try copy([GestureEmbeddingInput.rightHandScore(handedness)], toInput: 1)
        try copy(GestureEmbeddingInput.worldLandmarks(worldLandmarks), toInput: 2)
        try interpreter.invoke()
        return try interpreter.withUnsafeOutputBuffer(at: 0, body)
    }

    private func copy(_ values: [Float], toInput index: Int) throws {
        try interpreter.withUnsafeMutableInputBuffer(at: index) { input in
            guard input.count == values.count else {
                throw TasksError.internalError(
                    "Gesture embedder input \(index) holds \(input.count) values, expected \(values.count).")
            }
            for i in values.indices { input[i] = values[i] }
        }
    }
}
