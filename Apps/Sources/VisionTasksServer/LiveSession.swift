import Dispatch
import Foundation
import TaskRunner
import VisionTasks

/// One live WebSocket session: its own video-mode task instance (its own tracking state) and a
/// serial worker that decodes and runs frames off the server's I/O and concurrency threads.
///
/// Frames are never queued without bound: while a frame is in work, the newest frame that
/// arrives waits in a single slot; a frame already waiting there is replaced and counted as
/// dropped. Answers (JSON text, and a taught bundle when asked) go to `send`, which must not
/// block.
final class LiveSession: @unchecked Sendable {
    let library: ModelLibrary
    let limits: ServerLimits
    private let metrics: ServerMetrics
    /// The threads each frame runs on.
    private let threads: ThreadShare
    private let send: @Sendable (LiveOutgoing) -> Void
    let queue = DispatchQueue(label: "vision-tasks.live-session")

    let lock = NSLock()
    private var engine: TaskEngine
    /// The workout's classifier and counters (pose sessions), kept when options change.
    private var workout: PoseClassificationTracker?
    private var waiting: LiveFrame?
    var pendingSettings: TaskSettings?
    var busy = false
    var closed = false
    /// The gestures this session was taught (`LiveSession+Teach`).
    let teacher: GestureTeacher
    /// A teach request that runs on the worker before the next frame (train, use).
    var pendingTeach: TeachRequest?
    /// The gesture bundle the session runs instead of the server's, and its name (taught).
    var gestureModel: (name: String, bundle: Data)?
    /// An accepted upload request: the bundle's bytes come in the next binary messages, and
    /// those received so far.
    var expectedUpload: (name: String, bytes: Int, received: Data)?
    /// An uploaded bundle that waits for the worker, under its name.
    var pendingUpload: (name: String, bundle: Data)?
    private var dropped = 0
    private var processed = 0

    /// Builds the session's task (errors: the task's `TasksError`).
    init(
        settings: TaskSettings, library: ModelLibrary, limits: ServerLimits, metrics: ServerMetrics,
        threads: ThreadShare, send: @escaping @Sendable (LiveOutgoing) -> Void
    ) throws {
        self.library = library
        self.limits = limits
        self.metrics = metrics
        self.threads = threads
        self.send = send
        teacher = GestureTeacher(limits: limits, embedder: library.teachEmbedder)
        engine = try library.makeEngine(settings, mode: .video)
    }

    var settings: TaskSettings { lock.withLock { pendingSettings ?? engine.settings } }

    /// Frames replaced by a newer one before they were processed.
    var droppedFrames: Int { lock.withLock { dropped } }

    /// Acts on a client's message: a frame is processed (or waits), options make a new task
    /// instance before the next frame, a teach request is `teach(_:)`'s.
    func receive(_ message: LiveMessage) {
        switch message {
        case .frame(let frame): submit(frame)
        case .options(let settings): reconfigure(settings)
        case .workout(let request): startWorkout(request)
        case .teach(let request): teach(request)
        }
    }

    /// A workout message: a new tracker (counts from zero), counts reset, or no workout; then
    /// the `workout` answer. The frame in work (if any) finishes with the tracker it began with.
    func startWorkout(_ request: WorkoutRequest) {
        do throws(ServerError) {
            switch request {
            case .start(let samples, let count):
                let tracker = try WorkoutRequest.makeTracker(samples: samples, count: count)
                lock.withLock { workout = tracker }
            case .reset:
                guard let tracker = lock.withLock({ workout }) else {
                    throw ServerError(code: .badMessage, message: "there is no workout to reset: send its samples first")
                }
                tracker.reset()
            case .stop:
                lock.withLock { workout = nil }
            }
            answer(LiveWorkoutAnswer(tracker: lock.withLock { workout }))
        } catch {
            fail(error, timestamp: nil)
        }
    }

    /// Takes a frame: starts it now when the worker is idle, else puts it in the waiting slot.
    func submit(_ frame: LiveFrame) {
        let start: Bool = lock.withLock {
            if closed { return false }
            if busy {
                if waiting != nil {
                    dropped += 1
                    metrics.droppedFrame(engine.settings.task)
                }
                waiting = frame
                return false
            }
            busy = true
            return true
        }
        if start { queue.async { self.work(frame) } }
    }

    /// New options: a new task instance (tracking starts over) before the next frame.
    func reconfigure(_ settings: TaskSettings) {
        let start: Bool = lock.withLock {
            pendingSettings = settings
            if busy || closed { return false }
            busy = true
            return true
        }
        if start { queue.async { self.work(nil) } }
    }

    /// Stops processing: a waiting frame is discarded and no more answers are sent.
    func close() {
        lock.withLock {
            closed = true
            waiting = nil
        }
    }

    /// Runs `first` and then every frame that arrived meanwhile, until the slot is empty.
    func work(_ first: LiveFrame?) {
        var next = first
        while true {
            applyPendingTeach()
            applyPendingSettings()
            if let frame = next { process(frame) }
            let more: LiveFrame?? = lock.withLock {
                if closed || (waiting == nil && pendingSettings == nil && pendingTeach == nil && pendingUpload == nil) {
                    busy = false
                    return .none
                }
                defer { waiting = nil }
                return .some(waiting)
            }
            guard case .some(let frame) = more else { return }
            next = frame
        }
    }

    private func applyPendingSettings() {
        guard let settings = lock.withLock({ pendingSettings }) else { return }
        do {
            install(try library.makeEngine(settings, mode: .video, gestureModel: lock.withLock { gestureModel?.bundle }), for: settings)
        } catch {
            lock.withLock { pendingSettings = nil }
            fail(ServerError(code: .taskFailed, message: "the task cannot be created with these options: \(error)"), timestamp: nil)
        }
    }

    /// Runs `fresh`, made for `settings`, from the next frame on and answers `ready`; unless other
    /// options came while it was made (they are applied next, and this one is dropped).
    func install(_ fresh: TaskEngine, for settings: TaskSettings) {
        let current: Bool = lock.withLock {
            guard pendingSettings == nil || pendingSettings == settings else { return false }
            engine = fresh
            pendingSettings = nil
            return true
        }
        if current {
            answer(LiveReadyAnswer(settings: settings, maxImageBytes: limits.maxImageBytes, maxImagePixels: limits.maxImagePixels))
        }
    }

    private func process(_ frame: LiveFrame) {
        let (engine, dropped, workout) = lock.withLock { (self.engine, self.dropped, self.workout) }
        let started = DispatchTime.now().uptimeNanoseconds
        engine.useThreads(threads.threadsPerFrame)
        do throws(ServerError) {
            let (image, output) = try Self.run(frame, on: engine, limits: limits)
            let classifications = output.pose.flatMap { workout?.process($0, imageWidth: image.width, imageHeight: image.height) }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            metrics.processedFrame(engine.settings.task, seconds: seconds, live: true)
            let number = lock.withLock {
                processed += 1
                return processed
            }
            answer(
                LiveAnswer(
                    task: engine.settings.task, frame: number, width: image.width, height: image.height,
                    timestampInMilliseconds: frame.timestampInMilliseconds, output: output,
                    processingMilliseconds: seconds * 1000, droppedFrames: dropped, classifications: classifications))
            recordForTeaching(output, width: image.width, height: image.height, settings: engine.settings)
        } catch {
            fail(error, timestamp: frame.timestampInMilliseconds)
        }
    }

    /// Decodes `frame` within `limits` and runs `engine` on it at the frame's timestamp: the
    /// image and the task's output. Decoding's errors are its own (`badImage`, `imageTooLarge`),
    /// the task's are `taskFailed` (e.g. a timestamp that does not increase).
    static func run(_ frame: LiveFrame, on engine: TaskEngine, limits: ServerLimits) throws(ServerError) -> (MPImage, TaskOutput) {
        // The engine's threads decode too: this worker runs its frames one after another.
        let image = try FrameDecoder.decode(frame.image, limits: limits, threads: engine.threads)
        do {
            return (image, try engine.process(image, timestampInMilliseconds: frame.timestampInMilliseconds))
        } catch {
            throw ServerError(code: .taskFailed, message: "\(error)")
        }
    }

    /// Sends an error answer; the session goes on.
    func fail(_ error: ServerError, timestamp: Int?) {
        metrics.recordError(error.code)
        answer(LiveErrorAnswer(error: error, timestampInMilliseconds: timestamp))
    }

    func answer(_ value: some Encodable) {
        guard !lock.withLock({ closed }) else { return }
        guard let text = Self.text(of: value) else { return }
        send(.text(text))
    }

    /// Sends bytes as a binary message (a taught bundle, after the answer that announces it).
    func sendBinary(_ bytes: Data) {
        guard !lock.withLock({ closed }) else { return }
        send(.binary(bytes))
    }

    /// An answer as the text message a session sends (the CLI's JSON encoder); nil if it does
    /// not encode, in which case nothing is sent (the live fuzz target checks that every
    /// answer encodes).
    static func text(of answer: some Encodable) -> String? {
        guard let data = try? FrameRecord.makeEncoder().encode(answer) else { return nil }
        return String(data: data, encoding: .utf8)
    }
}
