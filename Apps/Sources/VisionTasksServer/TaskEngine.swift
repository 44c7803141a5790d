import TaskRunner
@_spi(Apps) import VisionTasks

/// One task instance with the settings it was made with: runs a frame and gives the result in
/// the CLI's JSON form. Not for concurrent use: a live session owns one, HTTP requests borrow
/// one from `EnginePool`.
final class TaskEngine: @unchecked Sendable {
    enum Instance {
        case gesture(GestureRecognizer)
        case hands(HandLandmarker)
        case pose(PoseLandmarker)
    }

    let settings: TaskSettings
    let mode: RunningMode
    private let instance: Instance
    private let events: GestureEventDetector?

    init(settings: TaskSettings, mode: RunningMode, instance: Instance, events: GestureEventDetector?) {
        self.settings = settings
        self.mode = mode
        self.instance = instance
        self.events = events
    }

    /// Runs the next frames on `count` threads (1 ... the threads it was made with; clamped).
    func useThreads(_ count: Int) {
        switch instance {
        case .gesture(let recognizer): recognizer.activeThreadCount = count
        case .hands(let landmarker): landmarker.activeThreadCount = count
        case .pose(let landmarker): landmarker.activeThreadCount = count
        }
    }

    /// The task's model threads, for decoding the next frame on the caller's thread before
    /// `process` (never while it runs).
    var threads: TaskThreads {
        switch instance {
        case .gesture(let recognizer): recognizer.threads
        case .hands(let landmarker): landmarker.threads
        case .pose(let landmarker): landmarker.threads
        }
    }

    /// Runs `image` (in video mode at `timestampInMilliseconds`, which must increase from call
    /// to call); errors are the task's `TasksError`s.
    func process(_ image: MPImage, timestampInMilliseconds: Int) throws -> TaskOutput {
        switch instance {
        case .gesture(let recognizer):
            let result = try recognizer.run(image, mode: mode, timestampInMilliseconds: timestampInMilliseconds)
            return TaskOutput(
                result: result, identifiers: result.handIdentifiers,
                events: events?.process(result, imageWidth: image.width, imageHeight: image.height) ?? [])
        case .hands(let landmarker):
            let result = try landmarker.run(image, mode: mode, timestampInMilliseconds: timestampInMilliseconds)
            return TaskOutput(
                result: result, identifiers: result.handIdentifiers,
                events: events?.process(result, imageWidth: image.width, imageHeight: image.height) ?? [])
        case .pose(let landmarker):
            let result = try landmarker.run(image, mode: mode, timestampInMilliseconds: timestampInMilliseconds)
            return TaskOutput(result: PoseRecord(result), identifiers: result.poseIdentifiers, events: [], pose: result)
        }
    }
}

/// What a task computed for one frame, ready to encode.
struct TaskOutput: @unchecked Sendable {
    /// The result in the CLI's JSON form (`GestureRecognizerResult`, `HandLandmarkerResult` or
    /// `PoseRecord`).
    var result: any Encodable
    /// Per hand (or pose), its identifier while it is tracked (empty in image mode).
    var identifiers: [Int]
    /// The gesture events this frame completed (live hand sessions).
    var events: [GestureEvent]
    /// The pose task's result, for a live session's workout (nil for hand tasks).
    var pose: PoseLandmarkerResult? = nil
}
