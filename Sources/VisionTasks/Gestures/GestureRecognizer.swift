import Foundation

/// Recognises hand gestures in images, video frames or a live stream, as MediaPipe's
/// `GestureRecognizer` (`MPPGestureRecognizer`): per hand, the gesture (canned: None,
/// Closed_Fist, Open_Palm, Pointing_Up, Thumb_Down, Thumb_Up, Victory, ILoveYou, or a custom
/// classifier's), the handedness and the 21 landmarks in image and world coordinates.
///
/// ```swift
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
/// Running modes (`GestureRecognizerOptions.runningMode`):
/// - `.image`: `recognize(image:)`; every image is independent.
/// - `.video`: `recognize(videoFrame:timestampInMilliseconds:)` with increasing timestamps;
///   hands are tracked from frame to frame.
/// - `.liveStream`: `recognizeAsync(image:timestampInMilliseconds:)` returns at once; results
///   reach the options' `gestureRecognizerLiveStreamDelegate` and `liveStreamResults()`. A
///   frame that arrives while the previous one is still being processed is dropped.
///
/// Results are in the coordinates of the upright image (`MPImage.orientation` applied).
/// Errors are `TasksError`s. Calls may come from any thread; they are processed one at a
/// time.
public final class GestureRecognizer: @unchecked Sendable {
    /// The mode the recognizer was created with.
    public let runningMode: RunningMode

    private let runner: VisionTaskRunner<MPImage, GestureRecognizerResult>
    private let relay: DelegateRelay

    /// A recognizer in image mode with default options for the model at `modelPath`.
    public convenience init(modelPath: String) throws {
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// A recognizer with `options` (copied). Throws `TasksError.invalidArgument` for invalid
    /// options (`numHands` < 1, a confidence outside 0...1, `baseOptions.numThreads` < 1,
    /// classifier options with both an allow and a deny list, `maxResults` 0, lists for a
    /// classifier without labels, a delegate in image or video mode or none in live-stream
    /// mode, a model that is not a gesture recognizer bundle), `.notFound` for a missing model
    /// file or bundle member, `.unimplemented` for the GPU.
    public init(options: GestureRecognizerOptions) throws {
        let options = options.copy()
        let configuration = try options.graphConfiguration()
        let canned = options.cannedGesturesClassifierOptions?.settings
        let custom = options.customGesturesClassifierOptions?.settings
        try canned?.validate("cannedGesturesClassifierOptions")
        try custom?.validate("customGesturesClassifierOptions")
        let delegate = options.gestureRecognizerLiveStreamDelegate
        try VisionTaskRunner<MPImage, GestureRecognizerResult>.validate(
            runningMode: options.runningMode, hasLiveStreamDelegate: delegate != nil)
        let asset = try ModelAsset(baseOptions: options.baseOptions)
        let hands = try HandLandmarkerGraph(asset: asset, configuration: configuration)
        let gestures = try HandGestureRecognizerGraph(
            asset: asset, cannedOptions: canned, customOptions: custom)
        let relay = DelegateRelay(delegate: delegate)
        self.relay = relay
        self.runningMode = options.runningMode
        var handler: VisionTaskRunner<MPImage, GestureRecognizerResult>.ResultHandler?
        if delegate != nil {
            handler = { result in relay.deliver(result) }
        }
        runner = try VisionTaskRunner<MPImage, GestureRecognizerResult>(
            runningMode: options.runningMode, taskName: "Gesture recognizer", resultHandler: handler,
            work: { image, frame in
                try GestureRecognizer.process(image, frame: frame, hands: hands, gestures: gestures)
            })
        relay.owner = self
    }

    /// One image or frame through the hand and gesture graphs (every error a `TasksError`).
    private static func process(
        _ image: MPImage, frame: VisionTaskRunner<MPImage, GestureRecognizerResult>.Frame,
        hands handGraph: HandLandmarkerGraph, gestures gestureGraph: HandGestureRecognizerGraph
    ) throws -> GestureRecognizerResult {
        do {
            let pixels = try HandLandmarkerGraph.pixels(of: image)
            let hands = try ImagePixels.withPixels(of: pixels) { view in
                try handGraph.process(view, tracksAcrossFrames: frame.tracksAcrossFrames)
            }
            var gestures: [[ResultCategory]] = []
            for hand in hands {
                if let gesture = try gestureGraph.recognize(
                    hand, imageWidth: pixels.width, imageHeight: pixels.height)
                {
                    gestures.append([gesture])
                }
            }
            return GestureRecognizerResult(
                gestures: gestures, handedness: hands.map { [$0.handedness] },
                landmarks: hands.map(\.landmarks), worldLandmarks: hands.map(\.worldLandmarks),
                timestampInMilliseconds: frame.timestampInMilliseconds ?? 0)
        } catch let error as TasksError {
            throw error
        } catch {
            throw TasksError.internalError("Gesture recognizer: \(error)")
        }
    }

    // MARK: - MediaPipe's methods

    /// Image mode: the hands and their gestures in `image`.
    public func recognize(image: MPImage) throws -> GestureRecognizerResult {
        try runner.processImage(image)
    }

    /// Video mode: the hands and gestures in the next frame of a video. Timestamps must
    /// increase from frame to frame (otherwise `TasksError.nonMonotonicTimestamp`; the
    /// recognizer stays usable).
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

    /// Image mode, without blocking the caller's thread.
    public func recognize(image: MPImage) async throws -> GestureRecognizerResult {
        try await runner.processImageAsync(image)
    }

    /// Video mode, without blocking the caller's thread. Await each frame before sending the
    /// next one.
    public func recognize(videoFrame image: MPImage, timestampInMilliseconds: Int) async throws
        -> GestureRecognizerResult
    {
        try await runner.processVideoFrameAsync(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Live-stream mode: the results of the frames sent after this call, as an async
    /// sequence (besides the delegate), in timestamp order. When the consumer falls behind,
    /// results beyond the newest `bufferingNewest` are discarded.
    public func liveStreamResults(bufferingNewest limit: Int = 64)
        -> AsyncStream<LiveStreamResult<GestureRecognizerResult>>
    {
        runner.liveStreamResults(bufferingNewest: limit)
    }

    /// Live-stream frames dropped so far because the previous frame was still being processed.
    public var droppedFrameCount: Int { runner.droppedFrameCount }

    /// Live-stream mode: waits until every accepted frame has been processed and its result
    /// delivered. Do not call it from the delegate.
    public func waitUntilIdle() {
        runner.waitUntilIdle()
    }
}

/// Forwards live-stream results to the (weakly held) delegate, with the recognizer as sender.
private final class DelegateRelay: @unchecked Sendable {
    private let lock = NSLock()
    private weak var delegate: (any GestureRecognizerLiveStreamDelegate)?
    private weak var _owner: GestureRecognizer?

    init(delegate: (any GestureRecognizerLiveStreamDelegate)?) {
        self.delegate = delegate
    }

    var owner: GestureRecognizer? {
        get { lock.withLock { _owner } }
        set { lock.withLock { _owner = newValue } }
    }

    func deliver(_ result: LiveStreamResult<GestureRecognizerResult>) {
        let (owner, delegate) = lock.withLock { (self._owner, self.delegate) }
        guard let owner, let delegate else { return }
        delegate.gestureRecognizer(
            owner, didFinishRecognition: result.value,
            timestampInMilliseconds: result.timestampInMilliseconds, error: result.error)
    }
}
