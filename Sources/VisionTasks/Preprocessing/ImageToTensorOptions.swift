/// How a model's input tensor is cut out of the image (MediaPipe's
/// ImageToTensorCalculatorOptions as the Tasks graphs configure them).
package struct ImageToTensorOptions: Sendable, Hashable {
    /// How pixels outside the image are filled.
    package enum BorderMode: Sendable, Hashable {
        /// Black (0 before the range conversion).
        case zero
        /// The nearest edge pixel (MediaPipe's default, `BORDER_UNSPECIFIED`).
        case replicate
    }

    package var outputWidth: Int
    package var outputHeight: Int
    /// Pad the region to the tensor's aspect ratio (letterbox) instead of stretching it.
    package var keepAspectRatio: Bool
    package var borderMode: BorderMode
    /// Pixel value 0 maps to `rangeMin`, 255 to `rangeMax`.
    package var rangeMin: Float
    package var rangeMax: Float

    package init(
        outputWidth: Int, outputHeight: Int, keepAspectRatio: Bool, borderMode: BorderMode,
        rangeMin: Float, rangeMax: Float
    ) {
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.keepAspectRatio = keepAspectRatio
        self.borderMode = borderMode
        self.rangeMin = rangeMin
        self.rangeMax = rangeMax
    }

    /// The range MediaPipe derives from a model's normalisation metadata
    /// (image_preprocessing_graph.cc): min = (0 − mean)/std, max = (255 − mean)/std.
    package static func range(mean: Float, std: Float) -> (min: Float, max: Float) {
        ((0.0 - mean) / std, (255.0 - mean) / std)
    }

    /// Palm detector: 192×192, letterboxed, zero border, [0, 1] (mean 0, std 255).
    package static let palmDetection = ImageToTensorOptions(
        outputWidth: 192, outputHeight: 192, keepAspectRatio: true, borderMode: .zero,
        rangeMin: 0, rangeMax: 1)
    /// Hand landmark model: 224×224 crop of the hand rect, stretched, replicated border, [0, 1].
    package static let handLandmarks = ImageToTensorOptions(
        outputWidth: 224, outputHeight: 224, keepAspectRatio: false, borderMode: .replicate,
        rangeMin: 0, rangeMax: 1)
    /// Pose detector: 224×224, letterboxed, zero border, [−1, 1] (mean 127.5, std 127.5).
    package static let poseDetection = ImageToTensorOptions(
        outputWidth: 224, outputHeight: 224, keepAspectRatio: true, borderMode: .zero,
        rangeMin: -1, rangeMax: 1)
    /// Pose landmark model: 256×256 crop of the pose rect, stretched, replicated border, [0, 1].
    package static let poseLandmarks = ImageToTensorOptions(
        outputWidth: 256, outputHeight: 256, keepAspectRatio: false, borderMode: .replicate,
        rangeMin: 0, rangeMax: 1)

    /// The affine value map from [0, 255] to [rangeMin, rangeMax] (MediaPipe's
    /// `GetValueRangeTransformation`): scale = (max − min)/255, offset = min.
    package var valueTransform: (scale: Float, offset: Float) {
        let scale = (rangeMax - rangeMin) / (255.0 - 0.0)
        return (scale, rangeMin - 0.0 * scale)
    }
}
