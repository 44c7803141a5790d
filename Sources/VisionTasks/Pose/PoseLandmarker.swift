import Foundation
import LiteInterpreter

/// Finds people's body landmarks in images, video frames or a live stream, as MediaPipe's
/// `PoseLandmarker` (`MPPPoseLandmarker`): 33 landmarks per pose in image and world
/// coordinates, with visibility and presence, and optionally a segmentation mask per pose.
///
/// ```swift
/// import MediaIO   // MPImage(contentsOfFile:)
///
/// let landmarker = try PoseLandmarker(modelPath: "pose_landmarker_full.task")
/// let result = try landmarker.detect(image: try MPImage(contentsOfFile: "person.jpg"))
/// for pose in result.landmarks {
///     let nose = pose[PoseLandmark.nose.rawValue]
///     print(nose.x, nose.y, nose.visibility ?? 0)
/// }
/// ```
///
/// The model is a MediaPipe `.task` bundle with `pose_detector.tflite` and
/// `pose_landmarks_detector.tflite`: the `pose_landmarker_full.task` that
/// `vision-tasks models install` builds, or Google's official `pose_landmarker_lite.task`,
/// `pose_landmarker_full.task` and `pose_landmarker_heavy.task`, which load the same way.
///
/// The running mode (`PoseLandmarkerOptions.runningMode`) decides which method to call:
/// `detect(image:)`, `detect(videoFrame:timestampInMilliseconds:)`, or
/// `detectAsync(image:timestampInMilliseconds:)`, whose results reach the options'
/// `poseLandmarkerLiveStreamDelegate` and `liveStreamResults()`. In video and live-stream mode
/// poses are tracked from frame to frame (the detector runs only when fewer than `numPoses` are
/// tracked) and, with `numPoses == 1`, landmarks are smoothed over time. Every task runs its
/// modes the same way (timestamps, dropped live-stream frames, Swift concurrency, threads):
/// <doc:RunningModes>.
///
/// Results are in the coordinates of the upright image (`MPImage.orientation` applied). Errors
/// are `TasksError`s. Calls may come from any thread; they are processed one at a time.
public final class PoseLandmarker: @unchecked Sendable {
    /// The connections between pose landmarks for drawing a skeleton (MediaPipe's
    /// `PoseLandmarker.poseLandmarks`).
    public static let poseLandmarks: [Connection] = PoseLandmark.connections

    /// The mode the landmarker was created with.
    public let runningMode: RunningMode

    private let runner: VisionTaskRunner<MPImage, PoseLandmarkerResult>
    private let relay: LiveStreamDelegateRelay<PoseLandmarker, PoseLandmarkerResult>
    private let workerPool: WorkerPool

    /// A landmarker in image mode with default options for the model at `modelPath`.
    public convenience init(modelPath: String) throws {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// A landmarker with `options` (copied). Throws `TasksError.invalidArgument` for invalid
    /// options (`numPoses` < 1, a confidence outside 0...1, `baseOptions.numThreads` < 1, a delegate in image or video mode
    /// or none in live-stream mode, a model that is not a pose landmarker bundle),
    /// `.notFound` for a missing model file or bundle member, `.unimplemented` for the GPU.
    public init(options: PoseLandmarkerOptions) throws {
        let options = options.copy()
        let configuration = try options.validatedPoseSettings()
        let delegate = options.poseLandmarkerLiveStreamDelegate
        let setup = try VisionTaskSetup(
            baseOptions: options.baseOptions, runningMode: options.runningMode,
            hasLiveStreamDelegate: delegate != nil)
        let graph = try PoseLandmarkerGraph(
            asset: setup.asset, configuration: configuration, threadCount: setup.threadCount)
        runningMode = options.runningMode
        workerPool = graph.pool
        relay = LiveStreamDelegateRelay(delegate: delegate) { delegate, landmarker, result in
            delegate.poseLandmarker(
                landmarker, didFinishDetection: result.value,
                timestampInMilliseconds: result.timestampInMilliseconds, error: result.error)
        }
        runner = try VisionTaskRunner(
            runningMode: options.runningMode, taskName: "Pose landmarker", resultHandler: relay.resultHandler
        ) { image, frame in
            try ImagePixels.withUprightPixels(of: image) { pixels in
                try graph.process(
                    pixels, tracksAcrossFrames: frame.tracksAcrossFrames,
                    timestampInMilliseconds: frame.resultTimestampInMilliseconds)
            }
        }
        relay.attach(self)
    }

    // MARK: - MediaPipe's methods

    /// Image mode: the poses in `image`.
    public func detect(image: MPImage) throws -> PoseLandmarkerResult {
        try runner.processImage(image)
    }

    /// Video mode: the poses in the next frame of a video. Timestamps must increase from
    /// frame to frame (otherwise `TasksError.nonMonotonicTimestamp`; the landmarker stays usable).
    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> PoseLandmarkerResult {
        try runner.processVideoFrame(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Live-stream mode: sends a frame and returns at once. The result reaches the delegate
    /// (and `liveStreamResults()`) later, unless the frame is dropped because the previous
    /// one is still being processed. Throws for a wrong mode or a timestamp not after the
    /// previous frame's.
    public func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws {
        try runner.processLiveStream(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    // MARK: - Swift concurrency

    /// Image mode, without blocking the caller's thread: `let result = try await landmarker.detect(image)`.
    /// Unlabeled, so that MediaPipe's synchronous `detect(image:)` keeps its meaning inside
    /// `async` functions (<doc:RunningModes>).
    public func detect(_ image: MPImage) async throws -> PoseLandmarkerResult {
        try await runner.processImageAsync(image)
    }

    /// Video mode, without blocking the caller's thread:
    /// `let result = try await landmarker.detect(frame, timestampInMilliseconds: t)`. Await each
    /// frame before sending the next one.
    public func detect(_ videoFrame: MPImage, timestampInMilliseconds: Int) async throws -> PoseLandmarkerResult {
        try await runner.processVideoFrameAsync(videoFrame, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Live-stream mode: the results of the frames sent after this call, as an async
    /// sequence (besides the delegate), in timestamp order. When the consumer falls behind,
    /// results beyond the newest `bufferingNewest` are discarded.
    public func liveStreamResults(bufferingNewest limit: Int = 64) -> AsyncStream<LiveStreamResult<PoseLandmarkerResult>> {
        runner.liveStreamResults(bufferingNewest: limit)
    }

    /// Live-stream frames dropped so far because the previous frame was still being processed or
    /// delivered.
    public var droppedFrameCount: Int { runner.droppedFrameCount }

    /// Live-stream mode: waits until every accepted frame has been processed and its result
    /// delivered. Do not call it from the delegate.
    public func waitUntilIdle() {
        runner.waitUntilIdle()
    }

    // MARK: - Sharing the cores

    /// Threads the models run on from the next call on: 1 ... `baseOptions.numThreads`
    /// (clamped), all of them at first. Not in MediaPipe: a server lowers it while other
    /// sessions share the cores, without making the task again. Results do not depend on it.
    @_spi(Apps) public var activeThreadCount: Int {
        get { workerPool.activeThreadCount }
        set { workerPool.activeThreadCount = newValue }
    }

    /// The threads the models run on, for work on a frame between calls (its decoding); see
    /// `TaskThreads` for when they may be used.
    @_spi(Apps) public var threads: TaskThreads { TaskThreads(pool: workerPool) }
}
