import Foundation
import LiteInterpreter

/// Finds hands in images, video frames or a live stream, as MediaPipe's `HandLandmarker`
/// (`MPPHandLandmarker`): 21 landmarks per hand in image and world coordinates, and whether
/// each is a left or right hand.
///
/// ```swift
/// import MediaIO   // MPImage(contentsOfFile:)
///
/// let landmarker = try HandLandmarker(modelPath: "hand_landmarker.task")
/// let result = try landmarker.detect(image: try MPImage(contentsOfFile: "hand.jpg"))
/// for (hand, handedness) in zip(result.landmarks, result.handedness) {
///     let tip = hand[HandLandmark.indexFingerTIP.rawValue]
///     print(handedness[0].categoryName ?? "", tip.x, tip.y)
/// }
/// ```
///
/// The model is a MediaPipe `.task` bundle with `hand_detector.tflite` and
/// `hand_landmarks_detector.tflite`: Google's `hand_landmarker.task` or the one
/// `vision-tasks models install` assembles (a `gesture_recognizer.task` works too: its nested
/// hand landmarker bundle is used).
///
/// The running mode (`HandLandmarkerOptions.runningMode`) decides which method to call:
/// `detect(image:)`, `detect(videoFrame:timestampInMilliseconds:)`, or
/// `detectAsync(image:timestampInMilliseconds:)`, whose results reach the options'
/// `handLandmarkerLiveStreamDelegate` and `liveStreamResults()`. In video and live-stream mode
/// hands are tracked from frame to frame: the palm detector runs only when fewer than `numHands`
/// hands are tracked. Every task runs its modes the same way (timestamps, dropped live-stream
/// frames, Swift concurrency, threads): <doc:RunningModes>.
///
/// Results are in the coordinates of the upright image (`MPImage.orientation` applied). Errors
/// are `TasksError`s. Calls may come from any thread; they are processed one at a time.
public final class HandLandmarker: @unchecked Sendable {
    /// The palm's lines of the hand skeleton.
    public static let handPalmConnections: [Connection] = HandConnections.palm
    /// The thumb's lines.
    public static let handThumbConnections: [Connection] = HandConnections.thumb
    /// The index finger's lines.
    public static let handIndexFingerConnections: [Connection] = HandConnections.indexFinger
    /// The middle finger's lines.
    public static let handMiddleFingerConnections: [Connection] = HandConnections.middleFinger
    /// The ring finger's lines.
    public static let handRingFingerConnections: [Connection] = HandConnections.ringFinger
    /// The pinky's lines.
    public static let handPinkyConnections: [Connection] = HandConnections.pinky
    /// Every line of the hand skeleton (21 connections between the 21 landmarks).
    public static let handConnections: [Connection] = HandConnections.all

    /// The mode the landmarker was created with.
    public let runningMode: RunningMode

    private let runner: VisionTaskRunner<MPImage, HandLandmarkerResult>
    private let relay: LiveStreamDelegateRelay<HandLandmarker, HandLandmarkerResult>
    private let workerPool: WorkerPool

    /// A landmarker in image mode with default options for the model at `modelPath`.
    public convenience init(modelPath: String) throws {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// A landmarker with `options` (copied). Throws `TasksError.invalidArgument` for invalid
    /// options (`numHands` < 1, a confidence outside 0...1, `baseOptions.numThreads` < 1, a delegate in image or video mode
    /// or none in live-stream mode, a model that is not a hand landmarker bundle),
    /// `.notFound` for a missing model file or bundle member, `.unimplemented` for the GPU.
    public init(options: HandLandmarkerOptions) throws {
        let options = options.copy()
        let configuration = try options.validatedHandSettings()
        let delegate = options.handLandmarkerLiveStreamDelegate
        let setup = try VisionTaskSetup(
            baseOptions: options.baseOptions, runningMode: options.runningMode,
            hasLiveStreamDelegate: delegate != nil)
        let graph = try HandLandmarkerGraph(
            asset: setup.asset, configuration: configuration, threadCount: setup.threadCount)
        runningMode = options.runningMode
        workerPool = graph.pool
        relay = LiveStreamDelegateRelay(delegate: delegate) { delegate, landmarker, result in
            delegate.handLandmarker(
                landmarker, didFinishDetection: result.value,
                timestampInMilliseconds: result.timestampInMilliseconds, error: result.error)
        }
        runner = try VisionTaskRunner(
            runningMode: options.runningMode, taskName: "Hand landmarker", resultHandler: relay.resultHandler
        ) { image, frame in
            let hands = try ImagePixels.withUprightPixels(of: image) { pixels in
                graph.reported(
                    try graph.process(pixels, tracksAcrossFrames: frame.tracksAcrossFrames),
                    imageWidth: pixels.width, imageHeight: pixels.height,
                    tracksAcrossFrames: frame.tracksAcrossFrames,
                    timestampInMilliseconds: frame.resultTimestampInMilliseconds)
            }
            var result = HandLandmarkerResult(
                landmarks: hands.map(\.landmarks), worldLandmarks: hands.map(\.worldLandmarks),
                handedness: hands.map { [$0.handedness] },
                timestampInMilliseconds: frame.resultTimestampInMilliseconds,
                handIdentifiers: hands.compactMap(\.trackingID).map { Int($0) })
            result.presenceScores = PresenceScores(hands.map(\.presence))
            return result
        }
        relay.attach(self)
    }

    // MARK: - MediaPipe's methods

    /// Image mode: the hands in `image`.
    public func detect(image: MPImage) throws -> HandLandmarkerResult {
        try runner.processImage(image)
    }

    /// Video mode: the hands in the next frame of a video. Timestamps must increase from
    /// frame to frame (otherwise `TasksError.nonMonotonicTimestamp`; the landmarker stays usable).
    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> HandLandmarkerResult {
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
    public func detect(_ image: MPImage) async throws -> HandLandmarkerResult {
        try await runner.processImageAsync(image)
    }

    /// Video mode, without blocking the caller's thread:
    /// `let result = try await landmarker.detect(frame, timestampInMilliseconds: t)`. Await each
    /// frame before sending the next one.
    public func detect(_ videoFrame: MPImage, timestampInMilliseconds: Int) async throws -> HandLandmarkerResult {
        try await runner.processVideoFrameAsync(videoFrame, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Live-stream mode: the results of the frames sent after this call, as an async
    /// sequence (besides the delegate), in timestamp order. When the consumer falls behind,
    /// results beyond the newest `bufferingNewest` are discarded.
    public func liveStreamResults(bufferingNewest limit: Int = 64) -> AsyncStream<LiveStreamResult<HandLandmarkerResult>> {
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
