import Foundation
import MediaIO
import VisionTasks

/// Runs a `PoseLandmarker` for `MediaDriver`: one image-mode landmarker shared by all images,
/// a fresh video-mode landmarker for each video or raw stream.
struct PoseFrameProcessor: FrameProcessor {
    let modelPath: String
    let numPoses: Int
    let minPoseDetectionConfidence: Float
    let minPosePresenceConfidence: Float
    let minTrackingConfidence: Float
    let outputSegmentationMasks: Bool
    let threads: Int

    private var imageLandmarker: PoseLandmarker?
    private var current: PoseLandmarker?
    private var mode = RunningMode.image

    init(
        modelPath: String, numPoses: Int, minPoseDetectionConfidence: Float, minPosePresenceConfidence: Float,
        minTrackingConfidence: Float, outputSegmentationMasks: Bool, threads: Int = BaseOptions.defaultNumThreads
    ) {
        self.modelPath = modelPath
        self.numPoses = numPoses
        self.minPoseDetectionConfidence = minPoseDetectionConfidence
        self.minPosePresenceConfidence = minPosePresenceConfidence
        self.minTrackingConfidence = minTrackingConfidence
        self.outputSegmentationMasks = outputSegmentationMasks
        self.threads = threads
    }

    var resultKey: String { "pose" }

    /// The landmarker for `mode`: the shared image-mode one, or a new video-mode one.
    mutating func landmarker(for mode: RunningMode) throws -> PoseLandmarker {
        if mode == .image, let imageLandmarker { return imageLandmarker }
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.numThreads = threads
        options.runningMode = mode
        options.numPoses = numPoses
        options.minPoseDetectionConfidence = minPoseDetectionConfidence
        options.minPosePresenceConfidence = minPosePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.outputSegmentationMasks = outputSegmentationMasks
        let landmarker = try PoseLandmarker(options: options)
        if mode == .image { imageLandmarker = landmarker }
        return landmarker
    }

    mutating func begin(input: MediaInput, mode: RunningMode) throws {
        current = try landmarker(for: mode)
        self.mode = mode
    }

    mutating func process(image: MPImage, timestampInMilliseconds: Int, frameIndex: Int) throws -> FrameOutput {
        let landmarker = try current ?? landmarker(for: .image)
        let result =
            mode == .image
            ? try landmarker.detect(image: image)
            : try landmarker.detect(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds)
        var overlay = Overlay()
        for (i, pose) in result.landmarks.enumerated() {
            overlay.append(
                Overlay.skeleton(
                    normalizedPoints: pose.map { (x: $0.x, y: $0.y) }, connections: LandmarkConnections.pose,
                    imageWidth: image.width, imageHeight: image.height,
                    label: result.landmarks.count > 1 ? "Pose \(i + 1)" : nil))
        }
        let masks = try result.segmentationMasks.map { mask in
            try PixelBuffer(width: mask.width, height: mask.height, format: .gray8, bytes: mask.uint8Data)
        }
        return FrameOutput(record: PoseRecord(result), summary: Self.summary(result), overlay: overlay, masks: masks)
    }

    static func summary(_ result: PoseLandmarkerResult) -> String {
        switch result.landmarks.count {
        case 0: return "no pose"
        case 1: return "1 pose"
        case let n: return "\(n) poses"
        }
    }
}
