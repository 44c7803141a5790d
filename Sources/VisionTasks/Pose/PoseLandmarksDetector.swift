import Foundation
import LiteInterpreter

/// The pose landmarks stage for one region (MediaPipe's SinglePoseLandmarksDetectorGraph,
/// docs/pipelines.md §5.2): crop the region into the landmark model, gate on pose presence,
/// decode 39 landmarks with visibility and presence, refine them with the heatmap, project
/// them into the image, rotate the world landmarks, warp the segmentation mask back onto the
/// image, and compute the region for the next frame from the two auxiliary landmarks.
///
/// Owns its interpreter; use it from one thread at a time.
final class PoseLandmarksDetector {
    /// What the model found in one region.
    struct Pose {
        /// The 33 landmarks in normalised image coordinates, with visibility and presence.
        var landmarks: [NormalizedLandmark]
        /// The 33 world landmarks (metres), with the landmarks' visibility and presence.
        var worldLandmarks: [Landmark]
        /// The region to track in the next frame (nil when the auxiliary landmarks give none).
        var nextFrameRegion: NormalizedRect?
        /// The model's pose presence score.
        var presence: Float
        /// The person's segmentation mask at the image size, when asked for.
        var segmentationMask: MPMask?
        /// The tracker's identifier of the region the pose was found in (video and live
        /// stream; nil in image mode).
        var trackingID: Int64? = nil
    }

    /// Landmarks the model outputs: 33 body landmarks and 2 auxiliary ones (hip midpoint,
    /// a point above the head) plus 4 unused.
    static let modelLandmarkCount = 39
    static let poseLandmarkCount = 33
    static let auxiliaryRange = 33..<35

    private let interpreter: Interpreter
    private let tensorOptions: ImageToTensorOptions
    private let minPresence: Float
    private let heatmapShape: (height: Int, width: Int)
    private let maskShape: (height: Int, width: Int)
    private let landmarkDimensions: Int

    /// Checks that `model` has the pose landmark model's input and five outputs (landmarks,
    /// presence, segmentation, heatmap, world landmarks, in MediaPipe's order).
    init(model: Model, minPresence: Float, pool: WorkerPool) throws {
        guard model.inputs.count == 1, model.inputs[0].shape.count == 4, model.inputs[0].shape[0] == 1,
            model.inputs[0].shape[3] == 3, model.inputs[0].shape[1] > 0, model.inputs[0].shape[2] > 0
        else {
            throw TasksError.invalidArgument(
                "Pose landmarks model: expected one input of shape [1, height, width, 3], got \(model.inputs.map(\.shape)).")
        }
        let n = Self.modelLandmarkCount
        let outputs = model.outputs
        guard outputs.count == 5 else {
            throw TasksError.invalidArgument(
                "Pose landmarks model: expected 5 outputs (landmarks, presence, segmentation, heatmap, world landmarks), got \(outputs.count).")
        }
        let landmarkValues = outputs[0].elementCount
        let heatmap = outputs[3].shape
        let mask = outputs[2].shape
        guard landmarkValues % n == 0, landmarkValues / n >= 5,
            outputs[1].elementCount == 1,
            outputs[4].elementCount >= n * 3,
            heatmap.count == 4, heatmap[0] == 1, heatmap[1] > 0, heatmap[2] > 0, heatmap[3] == n,
            (mask.count == 4 && mask[0] == 1 && mask[3] == 1) || (mask.count == 3 && mask[0] == 1),
            mask[1] > 0, mask[2] > 0
        else {
            throw TasksError.invalidArgument(
                "Pose landmarks model: unexpected output shapes \(outputs.map(\.shape)); expected [1, \(n * 5)], [1, 1], [1, H, W, 1], [1, h, w, \(n)], [1, \(n * 3)].")
        }
        var options = ImageToTensorOptions.poseLandmarks.normalized(by: model)
        options.outputHeight = model.inputs[0].shape[1]
        options.outputWidth = model.inputs[0].shape[2]
        self.tensorOptions = options
        self.landmarkDimensions = landmarkValues / n
        self.heatmapShape = (heatmap[1], heatmap[2])
        self.maskShape = (mask[1], mask[2])
        self.minPresence = minPresence
        do {
            self.interpreter = try Interpreter(model: model, sharing: pool)
        } catch {
            throw TasksError.invalidArgument("Pose landmarks model cannot run: \(error)")
        }
    }

    /// Runs the model on `region` of `image`; nil when the model finds no pose there (presence
    /// not above the threshold) or the region cannot be cropped (empty or not finite).
    func detect(_ image: ImagePixels, region: NormalizedRect, outputSegmentationMask: Bool) throws -> Pose? {
        guard region.width > 0, region.height > 0, region.xCenter.isFinite, region.yCenter.isFinite,
            region.width.isFinite, region.height.isFinite, region.rotation.isFinite
        else { return nil }
        let transform = try interpreter.withUnsafeMutableInputBuffer(at: 0) { input in
            try ImageToTensor.convert(image, region: region, options: tensorOptions, into: input, pool: interpreter.workerPool)
        }
        try interpreter.invoke()

        // Presence (ThresholdingCalculator: strictly above, compared in double).
        let presence = try interpreter.withUnsafeOutputBuffer(at: 1) { $0[0] }
        guard Double(presence) > Double(minPresence) else { return nil }

        // Landmarks in the crop, refined with the heatmap.
        var raw = try interpreter.withUnsafeOutputBuffer(at: 0) { decodeLandmarks($0) }
        try interpreter.withUnsafeOutputBuffer(at: 3) { heatmap in
            HeatmapRefinement.refine(
                &raw, heatmap: heatmap, height: heatmapShape.height, width: heatmapShape.width,
                kernelSize: 7, minConfidence: 0.5)
        }
        let unpadded = LandmarkProjection.removingLetterbox(raw, transform.padding)
        let projected = LandmarkProjection.project(unpadded, from: region)
        let landmarks = Array(projected.prefix(Self.poseLandmarkCount))
        let auxiliary = Array(projected[Self.auxiliaryRange])

        // World landmarks: the first 33, visibility and presence copied, rotated with the region.
        let world = try interpreter.withUnsafeOutputBuffer(at: 4) { values in
            (0..<Self.poseLandmarkCount).map { i in
                Landmark(
                    x: values[i * 3], y: values[i * 3 + 1], z: values[i * 3 + 2],
                    visibility: landmarks[i].visibility, presence: landmarks[i].presence)
            }
        }
        let worldLandmarks = LandmarkProjection.rotateWorld(world, by: region)

        var mask: MPMask?
        if outputSegmentationMask {
            mask = try segmentationMask(transform: transform)
        }
        let next = LandmarksToRect.pose(
            auxiliaryLandmarks: auxiliary, imageWidth: image.width, imageHeight: image.height)
        return Pose(
            landmarks: landmarks, worldLandmarks: worldLandmarks, nextFrameRegion: next,
            presence: presence, segmentationMask: mask)
    }

    /// TensorsToLandmarksCalculator: x/W, y/H, z/W of the model input, sigmoid of the
    /// visibility and presence logits.
    private func decodeLandmarks(_ values: UnsafeBufferPointer<Float>) -> [NormalizedLandmark] {
        let width = Float(tensorOptions.outputWidth), height = Float(tensorOptions.outputHeight)
        let d = landmarkDimensions
        return (0..<Self.modelLandmarkCount).map { i in
            let o = i * d
            return NormalizedLandmark(
                x: values[o] / width, y: values[o + 1] / height, z: values[o + 2] / width / 1.0,
                visibility: Self.sigmoid(values[o + 3]), presence: Self.sigmoid(values[o + 4]))
        }
    }

    /// `1 / (1 + exp(−x))` in float, as MediaPipe's landmark activations.
    static func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }

    /// The segmentation logits → probabilities → warped onto the whole image (§2.4).
    private func segmentationMask(transform: ImageToTensorTransform) throws -> MPMask {
        let (h, w) = maskShape
        let probabilities = try interpreter.withUnsafeOutputBuffer(at: 2) { logits in
            [Float](unsafeUninitializedCapacity: h * w) { buffer, count in
                for i in 0..<(h * w) { buffer[i] = Float(1.0 / (Double(expf(-logits[i])) + 1.0)) }
                count = h * w
            }
        }
        let values = try SegmentationMaskWarp.warp(
            mask: probabilities, maskWidth: w, maskHeight: h, crop: transform.matrix,
            imageWidth: transform.imageWidth, imageHeight: transform.imageHeight, pool: interpreter.workerPool)
        return try MPMask(float32Data: values, width: transform.imageWidth, height: transform.imageHeight)
    }
}
