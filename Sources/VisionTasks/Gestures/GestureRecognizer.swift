import Foundation
import LiteInterpreter

/// Recognises hand gestures in images, video frames or a live stream, as MediaPipe's
/// `GestureRecognizer` (`MPPGestureRecognizer`): per hand, the gesture (canned: None,
/// Closed_Fist, Open_Palm, Pointing_Up, Thumb_Down, Thumb_Up, Victory, ILoveYou, or a custom
/// classifier's), the handedness and the 21 landmarks in image and world coordinates.
///
/// ```swift
/// import MediaIO   // MPImage(contentsOfFile:)
///
/// let recognizer = try GestureRecognizer(modelPath: "gesture_recognizer.task")
/// let result = try recognizer.recognize(image: try MPImage(contentsOfFile: "thumbs_up.jpg"))
/// for gesture in result.gestures {
///     print(gesture.first?.categoryName ?? "", gesture.first?.score ?? 0)
/// }
/// ```
///
/// The model is a MediaPipe `.task` bundle: Google's `gesture_recognizer.task`, the one
/// `vision-tasks models install` assembles, or a Model Maker export with a custom classifier
/// (`custom_gesture_classifier.tflite`). With a custom classifier, both run as in MediaPipe:
/// the custom classifier's best class wins unless it is "None" (or filtered out, e.g. by the
/// score threshold in its metadata); then the canned classifier's.
///
/// The running mode (`GestureRecognizerOptions.runningMode`) decides which method to call:
/// `recognize(image:)`, `recognize(videoFrame:timestampInMilliseconds:)`, or
/// `recognizeAsync(image:timestampInMilliseconds:)`, whose results reach the options'
/// `gestureRecognizerLiveStreamDelegate` and `liveStreamResults()`. In video and live-stream
/// mode hands are tracked from frame to frame. Every task runs its modes the same way
/// (timestamps, dropped live-stream frames, Swift concurrency, threads): <doc:RunningModes>.
///
/// Results are in the coordinates of the upright image (`MPImage.orientation` applied). Errors
/// are `TasksError`s. Calls may come from any thread; they are processed one at a time.
public final class GestureRecognizer: @unchecked Sendable {
    /// The mode the recognizer was created with.
    public let runningMode: RunningMode

    private let runner: VisionTaskRunner<MPImage, GestureRecognizerResult>
    private let relay: LiveStreamDelegateRelay<GestureRecognizer, GestureRecognizerResult>
    private let workerPool: WorkerPool

    /// A recognizer in image mode with default options for the model at `modelPath`.
    public convenience init(modelPath: String) throws {
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// A recognizer with `options` (copied). Throws `TasksError.invalidArgument` for invalid
    /// options (`numHands` < 1, a confidence outside 0...1, `baseOptions.numThreads` < 1, classifier options with both an
    /// allow and a deny list, `maxResults` 0, lists for a classifier without labels, a
    /// delegate in image or video mode or none in live-stream mode, a model that is not a
    /// gesture recognizer bundle), `.notFound` for a missing model file or bundle member,
    /// `.unimplemented` for the GPU.
    public init(options: GestureRecognizerOptions) throws {
        let options = options.copy()
        let configuration = try options.validatedHandSettings()
        let canned = options.cannedGesturesClassifierOptions?.settings
        let custom = options.customGesturesClassifierOptions?.settings
        try canned?.validate("cannedGesturesClassifierOptions")
        try custom?.validate("customGesturesClassifierOptions")
        let delegate = options.gestureRecognizerLiveStreamDelegate
        let setup = try VisionTaskSetup(
            baseOptions: options.baseOptions, runningMode: options.runningMode,
            hasLiveStreamDelegate: delegate != nil)
        let handGraph = try HandLandmarkerGraph(
            asset: setup.asset, configuration: configuration, threadCount: setup.threadCount)
        let gestureGraph = try HandGestureRecognizerGraph(
            asset: setup.asset, cannedOptions: canned, customOptions: custom)
        runningMode = options.runningMode
        workerPool = handGraph.pool
        relay = LiveStreamDelegateRelay(delegate: delegate) { delegate, recognizer, result in
            delegate.gestureRecognizer(
                recognizer, didFinishRecognition: result.value,
                timestampInMilliseconds: result.timestampInMilliseconds, error: result.error)
        }
        runner = try VisionTaskRunner(
            runningMode: options.runningMode, taskName: "Gesture recognizer", resultHandler: relay.resultHandler
        ) { image, frame in
            try ImagePixels.withUprightPixels(of: image) { pixels in
                let hands = try handGraph.process(pixels, tracksAcrossFrames: frame.tracksAcrossFrames)
                var gestures: [[ResultCategory]] = []
                for hand in hands {
                    if let gesture = try gestureGraph.recognize(
                        hand, imageWidth: pixels.width, imageHeight: pixels.height)
                    {
                        gestures.append([gesture])
                    }
                }
                let reported = handGraph.reported(
                    hands, imageWidth: pixels.width, imageHeight: pixels.height,
                    tracksAcrossFrames: frame.tracksAcrossFrames,
                    timestampInMilliseconds: frame.resultTimestampInMilliseconds)
                return GestureRecognizerResult(
                    gestures: gestures, handedness: reported.map { [$0.handedness] },
                    landmarks: reported.map(\.landmarks), worldLandmarks: reported.map(\.worldLandmarks),
                    timestampInMilliseconds: frame.resultTimestampInMilliseconds,
                    handIdentifiers: reported.compactMap(\.trackingID).map { Int($0) })
            }
        }
        relay.attach(self)
    }

    // MARK: - MediaPipe's methods

    /// Image mode: the hands and their gestures in `image`.
    public func recognize(image: MPImage) throws -> GestureRecognizerResult {
        try runner.processImage(image)
    }

    /// Video mode: the hands and gestures in the next frame of a video. Timestamps must increase from
    /// frame to frame (otherwise `TasksError.nonMonotonicTimestamp`; the recognizer stays usable).
    public func recognize(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> GestureRecognizerResult {
        try runner.processVideoFrame(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Live-stream mode: sends a frame and returns at once. The result reaches the delegate
    /// (and `liveStreamResults()`) later, unless the frame is dropped because the previous
    /// one is still being processed. Throws for a wrong mode or a timestamp not after the
    /// previous frame's.
    public func recognizeAsync(image: MPImage, timestampInMilliseconds: Int) throws {
        try runner.processLiveStream(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    // MARK: - Swift concurrency

    /// Image mode, without blocking the caller's thread: `let result = try await recognizer.recognize(image)`.
    /// Unlabeled, so that MediaPipe's synchronous `recognize(image:)` keeps its meaning inside
    /// `async` functions (<doc:RunningModes>).
    public func recognize(_ image: MPImage) async throws -> GestureRecognizerResult {
        try await runner.processImageAsync(image)
    }

    /// Video mode, without blocking the caller's thread:
    /// `let result = try await recognizer.recognize(frame, timestampInMilliseconds: t)`. Await each
    /// frame before sending the next one.
    public func recognize(_ videoFrame: MPImage, timestampInMilliseconds: Int) async throws -> GestureRecognizerResult {
        try await runner.processVideoFrameAsync(videoFrame, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Live-stream mode: the results of the frames sent after this call, as an async
    /// sequence (besides the delegate), in timestamp order. When the consumer falls behind,
    /// results beyond the newest `bufferingNewest` are discarded.
    public func liveStreamResults(bufferingNewest limit: Int = 64)
        -> AsyncStream<LiveStreamResult<GestureRecognizerResult>>
    {
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
