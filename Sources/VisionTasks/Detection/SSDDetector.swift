import LiteInterpreter

/// One single-shot detector stage, as MediaPipe's palm and pose detector graphs run it:
/// image → letterboxed tensor → model → anchor decoding → weighted non-max suppression →
/// detections in normalised image coordinates.
///
/// Owns its interpreter; use it from one thread at a time (the tasks serialise frames).
package final class SSDDetector {
    /// How detections are mapped from tensor to image coordinates.
    package enum Projection: Sendable, Hashable {
        /// With the tensor's transform matrix (`DetectionProjectionCalculator`; hand detector).
        case matrix
        /// By removing the letterbox padding (`DetectionLetterboxRemovalCalculator`; pose detector).
        case letterboxRemoval
    }

    /// Everything that differs between MediaPipe's detector graphs.
    package struct Configuration: Sendable, Hashable {
        package var imageToTensor: ImageToTensorOptions
        package var anchors: SsdAnchorOptions
        package var decoder: DetectionDecoderOptions
        package var nonMaxSuppression: NonMaxSuppression
        package var projection: Projection

        package init(
            imageToTensor: ImageToTensorOptions, anchors: SsdAnchorOptions,
            decoder: DetectionDecoderOptions, nonMaxSuppression: NonMaxSuppression,
            projection: Projection
        ) {
            self.imageToTensor = imageToTensor
            self.anchors = anchors
            self.decoder = decoder
            self.nonMaxSuppression = nonMaxSuppression
            self.projection = projection
        }

        /// `hand_detector_graph.cc` with `min_detection_confidence`.
        package static func palmDetection(minScore: Float) -> Configuration {
            Configuration(
                imageToTensor: .palmDetection, anchors: .palmDetection,
                decoder: .palmDetection(minScore: minScore), nonMaxSuppression: .palmDetection,
                projection: .matrix)
        }

        /// `pose_detector_graph.cc` with `min_detection_confidence`.
        package static func poseDetection(minScore: Float) -> Configuration {
            Configuration(
                imageToTensor: .poseDetection, anchors: .poseDetection,
                decoder: .poseDetection(minScore: minScore),
                nonMaxSuppression: .poseDetection(), projection: .letterboxRemoval)
        }
    }

    package let configuration: Configuration
    private let interpreter: Interpreter
    private let decoder: DetectionDecoder
    private let boxesOutput: Int
    private let scoresOutput: Int

    /// Prepares the stage for `model`; checks that the model's tensors fit the configuration.
    /// The input range comes from the model's normalisation metadata when it has one.
    package convenience init(model: Model, configuration: Configuration, threadCount: Int) throws {
        let pool: WorkerPool
        do {
            pool = try WorkerPool(threadCount: threadCount)
        } catch {
            throw TasksError.invalidArgument("Detector model cannot run: \(error)")
        }
        try self.init(model: model, configuration: configuration, pool: pool)
    }

    /// The same on `pool`'s threads, shared with the task's other models (which must not run
    /// at the same time as this one).
    package init(model: Model, configuration: Configuration, pool: WorkerPool) throws {
        var configuration = configuration
        configuration.imageToTensor = configuration.imageToTensor.normalized(by: model)
        let o = configuration.decoder
        let tensor = configuration.imageToTensor
        let expectedInput = [1, tensor.outputHeight, tensor.outputWidth, 3]
        guard model.inputs.count == 1, model.inputs[0].shape == expectedInput else {
            throw TasksError.invalidArgument(
                "Detector model: expected one input of shape \(expectedInput), got \(model.inputs.map(\.shape)).")
        }
        let sizes = model.outputs.map { $0.shape.reduce(1, *) }
        guard let boxes = sizes.firstIndex(of: o.numBoxes * o.numCoords),
            let scores = sizes.firstIndex(of: o.numBoxes * o.numClasses), boxes != scores
        else {
            throw TasksError.invalidArgument(
                "Detector model: expected outputs of \(o.numBoxes)×\(o.numCoords) boxes and \(o.numBoxes)×\(o.numClasses) scores, got \(model.outputs.map(\.shape)).")
        }
        self.configuration = configuration
        self.boxesOutput = boxes
        self.scoresOutput = scores
        self.decoder = try DetectionDecoder(
            options: o, anchors: configuration.anchors.generateAnchors())
        do {
            self.interpreter = try Interpreter(model: model, sharing: pool)
        } catch {
            throw TasksError.invalidArgument("Detector model cannot run: \(error)")
        }
    }

    /// Detections in `region` of `image` (nil: the whole image), in normalised image
    /// coordinates, best first after non-max suppression.
    package func detect(_ image: ImagePixels, region: NormalizedRect?) throws -> [Detection] {
        let transform = try interpreter.withUnsafeMutableInputBuffer(at: 0) { input in
            try ImageToTensor.convert(
                image, region: region, options: configuration.imageToTensor, into: input, pool: interpreter.workerPool)
        }
        try interpreter.invoke()
        let decoded = try interpreter.withUnsafeOutputBuffer(at: boxesOutput) { boxes in
            try interpreter.withUnsafeOutputBuffer(at: scoresOutput) { scores in
                try decoder.decode(boxes: boxes, scores: scores)
            }
        }
        let kept = configuration.nonMaxSuppression.apply(decoded)
        switch configuration.projection {
        case .matrix:
            return kept.map { $0.projected(by: transform.matrix) }
        case .letterboxRemoval:
            return kept.map { $0.removingLetterbox(transform.padding) }
        }
    }
}
