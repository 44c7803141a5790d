import Foundation
import VisionTasks

/// Finds the body pose of one person, as ML Kit's `PoseDetector`, running MediaPipe's pose
/// landmarker (BlazePose) underneath.
///
/// ```swift
/// import VisionTasks   // MPImage
/// import MediaIO       // MPImage(contentsOfFile:)
///
/// let options = PoseDetectorOptions()
/// options.detectorMode = .singleImage
/// let poseDetector = PoseDetector.poseDetector(options: options)
/// let image = VisionImage(image: try MPImage(contentsOfFile: "person.jpg"))
/// for pose in try poseDetector.results(in: image) {
///     let leftAnkle = pose.landmark(ofType: .leftAnkle)
///     if leftAnkle.inFrameLikelihood > 0.5 { print(leftAnkle.position) }
/// }
/// ```
///
/// One person at most: an empty array when nobody is found. `.stream` detects the most
/// prominent person and tracks it from frame to frame (give frames in time order);
/// `.singleImage` detects on every image. The model is loaded on first use, so a missing or
/// damaged model is an error from the first `results(in:)` / `process` call
/// (`TasksError.notFound` / `.invalidArgument`), not a crash. Calls may come from any thread;
/// they run one at a time.
public final class PoseDetector: @unchecked Sendable {
    private let mode: PoseDetectorMode
    private let modelPath: String
    private let lock = NSLock()
    private var landmarker: PoseLandmarker?
    private var lastTimestamp: Int?
    private let queue = DispatchQueue(label: "VisionTasksMLKit.PoseDetector")

    private init(options: PoseDetectorOptions) {
        mode = options.detectorMode
        modelPath = options.resolvedModelPath
    }

    /// A detector with `options` (`PoseDetectorOptions` or `AccuratePoseDetectorOptions`).
    public static func poseDetector(options: PoseDetectorOptions) -> PoseDetector {
        PoseDetector(options: options)
    }

    /// The mode the detector was created with.
    public var detectorMode: PoseDetectorMode { mode }

    /// The model bundle the detector runs (VisionTasks' addition).
    public var modelAssetPath: String { modelPath }

    /// The poses in `image` (at most one), synchronously. Throws for a model that cannot be
    /// loaded or, in `.stream` mode, a timestamp not after the previous frame's.
    public func results(in image: VisionImage) throws -> [Pose] {
        let (taskImage, mirrored) = image.taskImage()
        let requested = image.timestampInMilliseconds
        return try lock.withLock {
            let landmarker = try loadedLandmarker()
            let result: PoseLandmarkerResult
            switch mode {
            case .singleImage:
                result = try landmarker.detect(image: taskImage)
            case .stream:
                let timestamp = nextTimestamp(requested)
                result = try landmarker.detect(videoFrame: taskImage, timestampInMilliseconds: timestamp)
                lastTimestamp = timestamp
            }
            return result.landmarks.prefix(1).map {
                PoseConversion.pose(
                    from: $0, imageWidth: taskImage.width, imageHeight: taskImage.height, mirrored: mirrored)
            }
        }
    }

    /// The poses in `image`, computed on the detector's own serial background queue; the
    /// `completion` runs on that queue too (not on the main queue: command-line programs on
    /// Linux run no main queue, where it would never arrive). Exactly one of the two
    /// arguments is non-nil.
    /// The completion need not be `@Sendable` (ML Kit's is not): it is called once, on that
    /// queue, and synchronising what it touches is the caller's business, as with ML Kit.
    public func process(_ image: VisionImage, completion: @escaping ([Pose]?, (any Error)?) -> Void) {
        let handler = CompletionBox(completion)
        queue.async {
            do {
                handler.completion(try self.results(in: image), nil)
            } catch {
                handler.completion(nil, error)
            }
        }
    }

    /// The poses in `image` without blocking the caller's thread (the form Swift gives ML
    /// Kit's `process(_:completion:)`): `let poses = try await detector.process(image)`.
    public func process(_ image: VisionImage) async throws -> [Pose] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[Pose], any Error>) in
            process(image) { poses, error in
                if let poses { continuation.resume(returning: poses) } else {
                    continuation.resume(throwing: error ?? TasksError.unknown("no result and no error"))
                }
            }
        }
    }

    /// Carries a caller's completion to the detector's queue.
    private struct CompletionBox: @unchecked Sendable {
        let completion: ([Pose]?, (any Error)?) -> Void
        init(_ completion: @escaping ([Pose]?, (any Error)?) -> Void) { self.completion = completion }
    }

    private func loadedLandmarker() throws -> PoseLandmarker {
        if let landmarker { return landmarker }
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = mode == .stream ? .video : .image
        options.numPoses = 1
        let made = try PoseLandmarker(options: options)
        landmarker = made
        return made
    }

    /// The frame's timestamp: the one given, or the time of the call kept after the previous
    /// frame's (so that two calls within a millisecond still increase).
    private func nextTimestamp(_ requested: Int?) -> Int {
        if let requested { return requested }
        let now = Int((Date().timeIntervalSince1970 * 1000).rounded(.down))
        guard let lastTimestamp else { return now }
        return max(now, lastTimestamp + 1)
    }
}
