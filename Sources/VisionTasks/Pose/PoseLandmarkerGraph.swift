import Foundation
import LiteInterpreter

/// MediaPipe's PoseLandmarkerGraph (docs/pipelines.md §5.3, §7): the pose detector, the
/// landmark model on each region, region tracking between frames and, with one pose in
/// video and live-stream mode, landmark smoothing.
///
/// Keeps per-stream state (tracked regions, filters); `VisionTaskRunner` never runs it
/// concurrently with itself.
final class PoseLandmarkerGraph {
    /// The pose options of `PoseLandmarkerOptions`, with MediaPipe's defaults; the options
    /// hold one of these and the graph runs with it.
    struct Configuration: Sendable, Equatable {
        var numPoses = 1
        var minPoseDetectionConfidence: Float = 0.5
        var minPosePresenceConfidence: Float = 0.5
        var minTrackingConfidence: Float = 0.5
        var outputSegmentationMasks = false

        /// MediaPipe's checks: `numPoses` ≥ 1, every confidence in 0...1.
        func validate() throws {
            try TaskOptionChecks.checkCount(numPoses, option: "numPoses")
            try TaskOptionChecks.checkConfidences([
                "minPoseDetectionConfidence": minPoseDetectionConfidence,
                "minPosePresenceConfidence": minPosePresenceConfidence,
                "minTrackingConfidence": minTrackingConfidence,
            ])
        }
    }

    /// Member names in a pose landmarker `.task` bundle (as in Google's bundles).
    static let detectorMember = "pose_detector.tflite"
    static let landmarksMember = "pose_landmarks_detector.tflite"

    let configuration: Configuration
    /// The threads both models run on.
    let pool: WorkerPool
    private let detector: SSDDetector
    private let landmarksDetector: PoseLandmarksDetector
    private var tracker: RegionTracker
    private var smoothing: PoseSmoothing

    /// The graph on the bundle's models, `threadCount` threads per model (`VisionTaskSetup`).
    /// The two models run one after another on one pool of threads.
    init(asset: ModelAsset, configuration: Configuration, threadCount: Int) throws {
        let detectorModel = try asset.model(named: Self.detectorMember)
        let landmarksModel = try asset.model(named: Self.landmarksMember)
        self.configuration = configuration
        let pool = try WorkerPool.forTask(threadCount: threadCount)
        self.pool = pool
        detector = try SSDDetector(
            model: detectorModel,
            configuration: .poseDetection(minScore: configuration.minPoseDetectionConfidence),
            pool: pool)
        landmarksDetector = try PoseLandmarksDetector(
            model: landmarksModel, minPresence: configuration.minPosePresenceConfidence,
            pool: pool)
        tracker = .poses(maxPoses: configuration.numPoses, minTrackingConfidence: configuration.minTrackingConfidence)
        smoothing = try PoseSmoothing()
    }

    /// Processes one image or frame. `tracksAcrossFrames` (video, live stream) enables region
    /// tracking and, with one pose, smoothing; `timestampInMilliseconds` drives the filters.
    func process(_ image: ImagePixels, tracksAcrossFrames: Bool, timestampInMilliseconds: Int) throws
        -> PoseLandmarkerResult
    {
        var poses = try run(image, tracksAcrossFrames: tracksAcrossFrames)
        // MediaPipe smooths only a single pose, in stream mode.
        if tracksAcrossFrames && configuration.numPoses == 1 {
            poses = smoothing.apply(
                poses, imageWidth: image.width, imageHeight: image.height,
                timestampMicroseconds: Int64(timestampInMilliseconds) * 1000)
        }
        var result = PoseLandmarkerResult(
            landmarks: poses.map(\.landmarks), worldLandmarks: poses.map(\.worldLandmarks),
            segmentationMasks: poses.compactMap(\.segmentationMask),
            timestampInMilliseconds: timestampInMilliseconds,
            poseIdentifiers: poses.compactMap(\.trackingID).map { Int($0) })
        result.presenceScores = PresenceScores(poses.map(\.presence))
        return result
    }

    private func run(_ image: ImagePixels, tracksAcrossFrames: Bool) throws -> [PoseLandmarksDetector.Pose] {
        let regions: [NormalizedRect]
        if tracksAcrossFrames {
            let detected = tracker.needsDetection ? try detectRegions(image) : nil
            regions = tracker.regions(detected: detected)
        } else {
            regions = RegionTracker.imageModeRegions(detected: try detectRegions(image), maxRegions: configuration.numPoses)
        }
        var poses: [PoseLandmarksDetector.Pose] = []
        for region in regions {
            if var pose = try landmarksDetector.detect(
                image, region: region, outputSegmentationMask: configuration.outputSegmentationMasks)
            {
                // The identifier follows the person into the region tracked in the next frame.
                pose.trackingID = region.rectID
                pose.nextFrameRegion?.rectID = region.rectID
                poses.append(pose)
            }
        }
        if tracksAcrossFrames {
            tracker.update(nextFrameRegions: poses.compactMap(\.nextFrameRegion))
        }
        return poses
    }

    /// The pose detector graph's expanded regions (all of them: the landmarker clips them
    /// after association).
    private func detectRegions(_ image: ImagePixels) throws -> [NormalizedRect] {
        try detector.detect(image, region: nil).compactMap { detection in
            DetectionToRect.poseAlignment.rect(
                for: detection, imageWidth: image.width, imageHeight: image.height
            ).map {
                RectTransformation.poseAlignment.apply(to: $0, imageWidth: image.width, imageHeight: image.height)
            }
        }
    }
}
