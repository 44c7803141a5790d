import ArgumentParser
import VisionTasks

/// Runs one vision task for `MediaDriver`: one image-mode instance shared by all images, and
/// a fresh video-mode instance for each video or raw stream (tracking state belongs to one
/// stream). What differs between tasks is how an instance is made and how its result
/// becomes a `FrameOutput`; the factories are in `TaskFrameProcessor+Hands.swift`, `+Gesture`
/// and `+Pose`.
struct TaskFrameProcessor<Task>: FrameProcessor {
    /// Creates a task in a running mode.
    typealias MakeTask = (RunningMode) throws -> Task
    /// Runs a task on one image or frame (`mode` says which of its methods to call).
    typealias Process = (_ task: Task, _ image: MPImage, _ mode: RunningMode, _ timestampInMilliseconds: Int) throws
        -> FrameOutput

    let resultKey: String
    private let makeTask: MakeTask
    private let processImage: Process
    /// How the task runs in live-stream mode; nil when it has none (the ML Kit and Vision
    /// façades), then live sources are refused.
    private let live: LiveHooks<Task>?
    /// What the processor keeps from frame to frame of one input besides the task (the pose
    /// classification's tracker); nil for none.
    private let inputState: InputState?

    private var imageTask: Task?
    private var current: Task?
    private var mode = RunningMode.image

    init(
        resultKey: String, makeTask: @escaping MakeTask, process: @escaping Process, live: LiveHooks<Task>? = nil,
        inputState: InputState? = nil
    ) {
        self.resultKey = resultKey
        self.makeTask = makeTask
        self.processImage = process
        self.live = live
        self.inputState = inputState
    }

    /// State that lives as long as one input: started before its first frame, and asked for
    /// the closing line of its text output after its last.
    struct InputState {
        /// Starts the state afresh for an input.
        var begin: () -> Void
        /// The line that closes the input's text output, or nil.
        var end: () -> String?
    }

    /// A fresh live-stream task for a live source (MediaPipe's `.liveStream` mode).
    mutating func beginLive(input: MediaInput, deliver: @escaping LiveDelivery) throws -> LiveTaskHandle? {
        guard let live else { return nil }
        inputState?.begin()
        let (task, delegate) = try live.make(deliver)
        return LiveTaskHandle(
            submit: { image, timestamp in try live.submit(task, image, timestamp) },
            droppedFrameCount: { live.droppedFrameCount(task) },
            waitUntilIdle: { live.waitUntilIdle(task) },
            delegate: delegate)
    }

    /// The task for `mode`: the shared image-mode one, or a new video-mode one.
    mutating func task(for mode: RunningMode) throws -> Task {
        if mode == .image, let imageTask { return imageTask }
        let task = try makeTask(mode)
        if mode == .image { imageTask = task }
        return task
    }

    mutating func begin(input: MediaInput, mode: RunningMode) throws {
        current = try task(for: mode)
        self.mode = mode
        inputState?.begin()
    }

    mutating func end(input: MediaInput) -> String? { inputState?.end() }

    mutating func process(image: MPImage, timestampInMilliseconds: Int, frameIndex: Int) throws -> FrameOutput {
        let task = try current ?? task(for: .image)
        return try processImage(task, image, mode, timestampInMilliseconds)
    }

    /// A task command's `run()`: creates the image-mode task first, so that a bad model fails
    /// once instead of once per input, then runs every input; exit code 1 if any failed.
    mutating func run(media: MediaOptions) throws {
        _ = try task(for: .image)
        guard try MediaDriver(options: media).run(&self) else { throw ExitCode(1) }
    }
}
