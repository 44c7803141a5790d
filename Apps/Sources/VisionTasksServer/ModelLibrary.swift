import Foundation
@_spi(Apps) import VisionTasks

/// The three model bundles, read from disk once when the server starts; every task instance
/// (one per live session, a few shared by HTTP requests) is made from these bytes.
struct ModelLibrary: Sendable {
    let gestureRecognizer: Data
    let handLandmarker: Data
    let poseLandmarker: Data
    let threadsPerTask: Int
    /// Embeds the hands of live sessions that record gestures to teach, made on first use.
    let teachEmbedder: TeachEmbedder

    /// Reads the bundles; a missing or unreadable file is a `TasksError.notFound` naming it.
    init(models: ServerModels, threadsPerTask: Int) throws {
        func read(_ path: String) throws -> Data {
            guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else {
                throw TasksError.notFound("Model asset not found or empty: \(path) (install it with `vision-tasks models install`)")
            }
            return data
        }
        gestureRecognizer = try read(models.gestureRecognizer)
        handLandmarker = try read(models.handLandmarker)
        poseLandmarker = try read(models.poseLandmarker)
        self.threadsPerTask = threadsPerTask
        teachEmbedder = TeachEmbedder(bundle: gestureRecognizer)
    }

    /// A task instance for `settings` in `mode` (`.image` for HTTP requests, `.video` for a
    /// live session, whose frames arrive in timestamp order and are tracked). A gesture task
    /// runs `gestureModel` when given (a bundle a session was taught), else the server's bundle.
    func makeEngine(_ settings: TaskSettings, mode: RunningMode, gestureModel: Data? = nil) throws -> TaskEngine {
        switch settings.task {
        case .gesture:
            let options = GestureRecognizerOptions()
            applyHandSettings(settings, to: options, model: gestureModel ?? gestureRecognizer, mode: mode)
            return TaskEngine(
                settings: settings, mode: mode, instance: .gesture(try GestureRecognizer(options: options)),
                events: try eventDetector(settings, mode: mode))
        case .hands:
            let options = HandLandmarkerOptions()
            applyHandSettings(settings, to: options, model: handLandmarker, mode: mode)
            return TaskEngine(
                settings: settings, mode: mode, instance: .hands(try HandLandmarker(options: options)),
                events: try eventDetector(settings, mode: mode))
        case .pose:
            let options = PoseLandmarkerOptions()
            options.baseOptions = baseOptions(poseLandmarker)
            options.runningMode = mode
            options.numPoses = settings.numPoses
            options.minPoseDetectionConfidence = settings.minPoseDetectionConfidence
            options.minPosePresenceConfidence = settings.minPosePresenceConfidence
            options.minTrackingConfidence = settings.minTrackingConfidence
            options.outputSegmentationMasks = settings.segmentationMasks
            return TaskEngine(settings: settings, mode: mode, instance: .pose(try PoseLandmarker(options: options)), events: nil)
        }
    }

    /// Live sessions of the hand tasks turn their results into gesture events (thumbs up and
    /// down, swipes) with the detector's documented defaults; images have no events.
    private func eventDetector(_ settings: TaskSettings, mode: RunningMode) throws -> GestureEventDetector? {
        guard mode != .image else { return nil }
        var options = GestureEventOptions()
        options.inputIsMirrored = settings.mirrored
        return try GestureEventDetector(options: options)
    }

    private func baseOptions(_ model: Data) -> BaseOptions {
        let base = BaseOptions(modelAssetBuffer: model)
        base.numThreads = threadsPerTask
        return base
    }

    /// The settings the hand landmarker and the gesture recognizer share.
    private func applyHandSettings(_ settings: TaskSettings, to options: some CommonHandOptions, model: Data, mode: RunningMode) {
        options.baseOptions = baseOptions(model)
        options.runningMode = mode
        options.numHands = settings.numHands
        options.minHandDetectionConfidence = settings.minHandDetectionConfidence
        options.minHandPresenceConfidence = settings.minHandPresenceConfidence
        options.minTrackingConfidence = settings.minTrackingConfidence
        options.inputIsMirrored = settings.mirrored
        options.landmarkSmoothing = settings.smoothing ? HandLandmarkSmoothing() : nil
    }
}
