import Dispatch
import Foundation
import MediaIO
import VisionTasks

/// One live source's run: reads the source in real time into a live-stream task
/// (`LiveSourceReader`), takes each result back with the frame it was computed on, and has
/// `output` write them, as they come. Used by the task commands (`MediaDriver.runLive`, where
/// `Value` makes a `FrameOutput` from the frame's image) and by `swipe` (the recognizer's
/// result).
///
/// Unchecked Sendable: the frames in flight and the first failure are under the lock;
/// `output` runs only on the task's serial result queue, and nothing else touches what it
/// captures until `read` has waited for the task to be idle.
final class LiveRun<Value>: @unchecked Sendable {
    /// Writes one processed frame's outputs (a record, an event, the annotated frame...).
    typealias Output = (_ frame: VideoFrame, _ value: Value) throws -> Void

    let statistics = LiveStatistics()
    let token: InterruptToken
    private let stop: StopSignals
    private let output: Output
    private let lock = NSLock()
    private var inFlight: [Int: (frame: VideoFrame, arrival: UInt64)] = [:]
    private var firstFailure: (any Error)?

    init(stop: StopSignals, output: @escaping Output) {
        self.stop = stop
        token = stop.makeToken()
        self.output = output
    }

    /// The first error of a result or an output; it stops the source.
    var failure: (any Error)? { lock.withLock { firstFailure } }

    /// The task's result for the frame sent with `timestamp` (on the task's result queue).
    func deliver(_ timestamp: Int, _ result: Result<Value, TasksError>) {
        let entry = lock.withLock { () -> (frame: VideoFrame, arrival: UInt64)? in
            let entry = inFlight.removeValue(forKey: timestamp)
            // Frames sent before this one and never answered (none should be) are let go.
            inFlight = inFlight.filter { $0.key > timestamp }
            return firstFailure == nil ? entry : nil
        }
        guard let entry else { return }
        do {
            switch result {
            case .success(let value):
                try output(entry.frame, value)
                statistics.resultPrinted(latencyNanoseconds: DispatchTime.now().uptimeNanoseconds &- entry.arrival)
            case .failure(let error):
                statistics.frameFailed()
                throw error
            }
        } catch {
            fail(error)
        }
    }

    /// Records the first failure and stops the source.
    func fail(_ error: any Error) {
        lock.withLock { if firstFailure == nil { firstFailure = error } }
        token.interrupt()
    }

    /// Reads `input` into `task` until the source ends by itself, a signal stops it or an
    /// error does; then waits for the task's last result, calls `finish` (complete the
    /// annotated video), prints the counts on stderr, and throws the first error (a signal is
    /// no error). `opened` learns the source's description before the first frame.
    func read(
        _ input: MediaInput, options: LiveOptions, appliesDisplayRotation: Bool, task: LiveTaskHandle,
        opened: (VideoInfo) -> Void = { _ in }, finish: () throws -> Void
    ) throws {
        var ending = "the source ended"
        var readError: (any Error)?
        var reader: VideoReader?
        do {
            let source = try LiveSourceReader.open(input, options: options, appliesDisplayRotation: appliesDisplayRotation, token: token)
            reader = source
            opened(source.info)
            let end = try LiveSourceReader.run(
                source, timeoutSeconds: options.inputTimeout, token: token, statistics: statistics
            ) { frame, arrival in
                try send(frame, arrival: arrival, task: task)
            }
            switch end {
            case .endOfStream: break
            case .stopped: ending = stop.signalReceived.map { "stopped by \(StopSignals.name($0))" } ?? "stopped"
            case .silence(let message): ending = message
            }
        } catch {
            readError = error
            ending = "failed"
        }
        // Every accepted frame's result is written before the outputs are completed and counted.
        task.waitUntilIdle()
        var finishError: (any Error)?
        do { try finish() } catch { finishError = error }
        if let reader {
            MediaDriver.report(statistics.summary(
                source: input.path, ending: failure == nil ? ending : "stopped by an error", dropped: task.droppedFrameCount(),
                timestamps: reader.timestampSource, decodeErrors: reader.decodeErrorCount))
        }
        withExtendedLifetime(task.delegate) {}
        if let failure { throw failure }
        if let readError { throw readError }
        if let finishError { throw finishError }
    }

    /// Sends `frame` to the task, remembering it for its result; forgets it when the task
    /// dropped it (its dropped count grew: only this thread sends frames).
    private func send(_ frame: VideoFrame, arrival: UInt64, task: LiveTaskHandle) throws {
        let timestamp = frame.timestampInMilliseconds
        lock.withLock { inFlight[timestamp] = (frame, arrival) }
        let dropped = task.droppedFrameCount()
        try task.submit(MPImage(pixelBuffer: frame.image), timestamp)
        if task.droppedFrameCount() > dropped { _ = lock.withLock { inFlight.removeValue(forKey: timestamp) } }
    }
}
