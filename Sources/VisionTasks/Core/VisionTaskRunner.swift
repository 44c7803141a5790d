import Dispatch
import Foundation

/// The running-mode machinery every vision task shares: the one mechanism that validates the
/// running mode, checks timestamps, serialises processing, and runs live streams.
///
/// A task supplies only its per-frame work, `(input, frame) throws -> Output`, and (in
/// live-stream mode) a handler that calls its delegate:
///
/// - `.image`: `processImage` runs the work on the calling thread.
/// - `.video`: `processVideoFrame` checks that timestamps strictly increase, then runs the
///   work on the calling thread. A rejected timestamp changes nothing: the task stays usable.
/// - `.liveStream`: `processLiveStream` checks the timestamp and returns at once. The frame is
///   processed on the runner's serial worker queue; if the previous frame is still being
///   processed, or its result is still being delivered, the new frame is dropped (no result,
///   `droppedFrameCount` grows). Results reach the handler and every `liveStreamResults()`
///   stream on one serial queue, in timestamp order. So at most one result ever waits for a
///   slow handler: memory stays bounded whatever the handler does, and a result is never
///   older than one frame plus the handler's own time.
///
/// Calls may come from any thread; the work is never run concurrently with itself, so it can
/// keep per-task state (trackers, filters) without its own locks. Whatever the work throws
/// reaches the caller (or the live-stream results) as a `TasksError`.
package final class VisionTaskRunner<Input: Sendable, Output: Sendable>: @unchecked Sendable {
    /// What the work needs to know about the frame.
    package struct Frame: Sendable {
        package let mode: RunningMode
        /// The frame's timestamp; nil in image mode.
        package let timestampInMilliseconds: Int?
        /// Whether regions may be tracked from the previous frame (video and live stream, as
        /// MediaPipe's `use_stream_mode`).
        package var tracksAcrossFrames: Bool { mode != .image }
        /// The timestamp the frame's result carries: the frame's, 0 in image mode (as in
        /// MediaPipe).
        package var resultTimestampInMilliseconds: Int { timestampInMilliseconds ?? 0 }
    }

    package typealias Work = (Input, Frame) throws -> Output
    package typealias ResultHandler = @Sendable (LiveStreamResult<Output>) -> Void

    package let runningMode: RunningMode
    /// The task's name for error messages ("Hand landmarker", ...).
    package let taskName: String

    // `work` and everything it captures are only touched while `workLock` is held (image and
    // video) or on `workerQueue` (live stream); the running mode never changes, so the two
    // paths never mix.
    private let work: Work
    private let workLock = NSLock()
    private let resultHandler: ResultHandler?

    // Timestamp, drop and stream bookkeeping.
    private let stateLock = NSLock()
    private var lastTimestamp: Int?
    private var busy = false
    private var dropped = 0
    private var streams: [UInt64: AsyncStream<LiveStreamResult<Output>>.Continuation] = [:]
    private var nextStreamID: UInt64 = 0

    private let workerQueue: DispatchQueue
    private let callbackQueue: DispatchQueue

    /// - Parameters:
    ///   - runningMode: the task's mode, fixed for its lifetime.
    ///   - taskName: used in queue labels.
    ///   - resultHandler: live stream only: called on the runner's serial callback queue with
    ///     each result (typically forwarding to the task's delegate). Required in live-stream
    ///     mode and refused in the others (`RunningMode.checkLiveStreamDelegate`).
    ///   - work: the per-frame processing. An error that is not a `TasksError` reaches the
    ///     caller as `TasksError.internalError` naming the task.
    package init(
        runningMode: RunningMode, taskName: String, resultHandler: ResultHandler? = nil,
        work: @escaping Work
    ) throws {
        try runningMode.checkLiveStreamDelegate(isSet: resultHandler != nil)
        self.runningMode = runningMode
        self.taskName = taskName
        self.resultHandler = resultHandler
        self.work = work
        let label = "com.visiontasks.\(taskName.replacingOccurrences(of: " ", with: "_"))"
        self.workerQueue = DispatchQueue(label: label + ".worker", qos: .userInitiated)
        self.callbackQueue = DispatchQueue(label: label + ".results")
    }

    // MARK: - Modes

    private func requireMode(_ expected: RunningMode) throws {
        guard runningMode == expected else {
            let name: String
            switch expected {
            case .image: name = "image"
            case .video: name = "video"
            case .liveStream: name = "live stream"
            }
            throw TasksError.invalidArgument(
                "The vision task is not initialized with \(name) mode. Current Running Mode: \(runningMode.displayName)")
        }
    }

    private static func checkRange(_ timestamp: Int) throws {
        // MediaPipe keeps timestamps in microseconds in an Int64.
        let limit = Int(Int64.max / 1000) - 1
        guard timestamp > -limit, timestamp < limit else {
            throw TasksError.invalidArgument(
                "Timestamp \(timestamp) ms is out of range: it must fit in microseconds as a 64-bit integer.")
        }
    }

    /// Accepts `timestamp` if it is after the last accepted one, and records it.
    private func acceptTimestamp(_ timestamp: Int) throws {
        try Self.checkRange(timestamp)
        try stateLock.withLock {
            if let last = lastTimestamp, timestamp <= last {
                throw TasksError.nonMonotonicTimestamp(
                    previousMilliseconds: last, receivedMilliseconds: timestamp)
            }
            lastTimestamp = timestamp
        }
    }

    /// Runs the work on one frame (the caller holds `workLock` or is on `workerQueue`). Every
    /// error leaves as a `TasksError`, as MediaPipe's tasks report only their own errors.
    private func perform(_ input: Input, _ frame: Frame) throws(TasksError) -> Output {
        do {
            return try work(input, frame)
        } catch let error as TasksError {
            throw error
        } catch {
            throw .internalError("\(taskName): \(error)")
        }
    }

    // MARK: - Synchronous processing

    /// Image mode: processes one independent image.
    package func processImage(_ input: Input) throws -> Output {
        try requireMode(.image)
        return try workLock.withLock {
            try perform(input, Frame(mode: .image, timestampInMilliseconds: nil))
        }
    }

    /// Video mode: processes the next frame; its timestamp must be greater than the previous
    /// frame's.
    package func processVideoFrame(_ input: Input, timestampInMilliseconds: Int) throws -> Output {
        try requireMode(.video)
        return try workLock.withLock {
            try acceptTimestamp(timestampInMilliseconds)
            return try perform(input, Frame(mode: .video, timestampInMilliseconds: timestampInMilliseconds))
        }
    }

    /// Image mode without blocking the caller: the work runs on a dispatch queue.
    package func processImageAsync(_ input: Input) async throws -> Output {
        try requireMode(.image)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result(catching: { try self.processImage(input) }))
            }
        }
    }

    /// Video mode without blocking the caller. Frames must still be sent in timestamp order:
    /// await each call before sending the next frame.
    package func processVideoFrameAsync(_ input: Input, timestampInMilliseconds: Int) async throws -> Output {
        try requireMode(.video)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result(catching: {
                    try self.processVideoFrame(input, timestampInMilliseconds: timestampInMilliseconds)
                }))
            }
        }
    }

    // MARK: - Live stream

    /// Live-stream mode: accepts a frame and returns at once. Throws only for a wrong mode or
    /// a timestamp not after the previous frame's (accepted frames count, dropped or not, as
    /// in MediaPipe). The result arrives later through the handler and the result streams,
    /// unless the frame is dropped because the previous one is still being processed or
    /// delivered.
    package func processLiveStream(_ input: Input, timestampInMilliseconds: Int) throws {
        try requireMode(.liveStream)
        try acceptTimestamp(timestampInMilliseconds)
        let start = stateLock.withLock { () -> Bool in
            if busy {
                dropped += 1
                return false
            }
            busy = true
            return true
        }
        guard start else { return }
        workerQueue.async { [self] in
            let frame = Frame(mode: .liveStream, timestampInMilliseconds: timestampInMilliseconds)
            workLock.lock()
            let outcome = Result { () throws(TasksError) -> Output in try perform(input, frame) }
            workLock.unlock()
            let result = LiveStreamResult(timestampInMilliseconds: timestampInMilliseconds, outcome: outcome)
            // The next frame is accepted only once this result was delivered: a slow handler
            // makes frames drop instead of results pile up (and results stay in order).
            callbackQueue.async { [self] in
                deliver(result)
                stateLock.withLock { busy = false }
            }
        }
    }

    private func deliver(_ result: LiveStreamResult<Output>) {
        resultHandler?(result)
        let continuations = stateLock.withLock { Array(streams.values) }
        for continuation in continuations { continuation.yield(result) }
    }

    /// How many live-stream frames were dropped because the previous frame was still being
    /// processed or its result delivered.
    package var droppedFrameCount: Int { stateLock.withLock { dropped } }

    /// A new stream of live-stream results (every result delivered after this call). Several
    /// streams may be open at once; a stream ends when its consumer stops iterating.
    /// When the consumer falls behind, the oldest undelivered results beyond
    /// `bufferingNewest` are discarded.
    package func liveStreamResults(bufferingNewest limit: Int = 64) -> AsyncStream<LiveStreamResult<Output>> {
        let (stream, continuation) = AsyncStream<LiveStreamResult<Output>>.makeStream(
            bufferingPolicy: .bufferingNewest(max(1, limit)))
        let id = stateLock.withLock { () -> UInt64 in
            let id = nextStreamID
            nextStreamID += 1
            streams[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.stateLock.withLock { _ = self.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Blocks until every accepted live-stream frame has been processed and its result
    /// delivered. Must not be called from a result handler.
    package func waitUntilIdle() {
        workerQueue.sync {}
        callbackQueue.sync {}
    }

    deinit {
        let continuations = stateLock.withLock { Array(streams.values) }
        for continuation in continuations { continuation.finish() }
    }
}
