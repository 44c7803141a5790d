/// Options for `GestureEmbedder`: the bundle whose models embed hands, and how hands are found,
/// with the defaults of Model Maker's `HandDataPreprocessingParams`.
public struct GestureEmbedderOptions: Sendable {
    /// The gesture recognizer bundle (`gesture_recognizer.task` or a bundle trained from it): its
    /// hand landmarker finds the hand and its `gesture_embedder.tflite` embeds it. Copied when
    /// the embedder is created.
    public var baseOptions: BaseOptions
    /// The palm detector's score threshold, 0...1 (`min_detection_confidence`, default 0.7:
    /// higher than the recognizer's 0.5, so that only clear hands become samples).
    public var minHandDetectionConfidence: Float
    /// The landmark model's hand presence threshold, 0...1 (default 0.5, as Model Maker).
    public var minHandPresenceConfidence: Float

    /// Options for the bundle at `modelPath` (or set `baseOptions` later), with Model Maker's
    /// defaults.
    public init(modelPath: String = "", minHandDetectionConfidence: Float = 0.7, minHandPresenceConfidence: Float = 0.5) {
        baseOptions = BaseOptions()
        baseOptions.modelAssetPath = modelPath
        self.minHandDetectionConfidence = minHandDetectionConfidence
        self.minHandPresenceConfidence = minHandPresenceConfidence
    }
}
