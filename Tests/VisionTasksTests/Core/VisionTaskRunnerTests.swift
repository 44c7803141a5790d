import Dispatch
import Foundation
import XCTest

@testable import VisionTasks

/// A thread-safe log for results delivered on the runner's queues.
private final class Log<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var all: [T] { lock.withLock { items } }
}

final class VisionTaskRunnerTests: XCTestCase {
    private typealias Runner = VisionTaskRunner<Int, String>

    func testDelegateRules() {
        XCTAssertThrowsError(try Runner(runningMode: .liveStream, taskName: "Test") { _, _ in "" }) { error in
            XCTAssertEqual(
                error as? TasksError,
                .invalidArgument(
                    "The vision task is in live stream mode. An object must be set as the delegate of the task in its options to ensure asynchronous delivery of results."))
        }
        for mode in [RunningMode.image, .video] {
            XCTAssertThrowsError(
                try Runner(runningMode: mode, taskName: "Test", resultHandler: { _ in }) { _, _ in "" }
            ) { error in
                XCTAssertEqual(
                    error as? TasksError,
                    .invalidArgument(
                        "The vision task is in image or video mode. The delegate must not be set in the task's options."))
            }
        }
    }

    func testWrongModeCallsSayWhatIsWrong() throws {
        let image = try Runner(runningMode: .image, taskName: "Test") { input, _ in "\(input)" }
        XCTAssertEqual(try image.processImage(1), "1")
        XCTAssertThrowsError(try image.processVideoFrame(1, timestampInMilliseconds: 0)) { error in
            XCTAssertEqual(
                error as? TasksError,
                .invalidArgument("The vision task is not initialized with video mode. Current Running Mode: Image"))
        }
        XCTAssertThrowsError(try image.processLiveStream(1, timestampInMilliseconds: 0)) { error in
            XCTAssertEqual(
                error as? TasksError,
                .invalidArgument("The vision task is not initialized with live stream mode. Current Running Mode: Image"))
        }
        let video = try Runner(runningMode: .video, taskName: "Test") { input, _ in "\(input)" }
        XCTAssertThrowsError(try video.processImage(1)) { error in
            XCTAssertEqual(
                error as? TasksError,
                .invalidArgument("The vision task is not initialized with image mode. Current Running Mode: Video"))
        }
    }

    func testVideoTimestampsMustIncreaseAndTheTaskStaysUsable() throws {
        let seen = Log<Int?>()
        let video = try Runner(runningMode: .video, taskName: "Test") { input, frame in
            XCTAssertTrue(frame.tracksAcrossFrames)
            seen.append(frame.timestampInMilliseconds)
            return "\(input)"
        }
        XCTAssertEqual(try video.processVideoFrame(1, timestampInMilliseconds: 33), "1")
        for bad in [33, 10, -5] {
            XCTAssertThrowsError(try video.processVideoFrame(2, timestampInMilliseconds: bad)) { error in
                XCTAssertEqual(
                    error as? TasksError,
                    .nonMonotonicTimestamp(previousMilliseconds: 33, receivedMilliseconds: bad))
            }
        }
        XCTAssertEqual(try video.processVideoFrame(3, timestampInMilliseconds: 34), "3")
        XCTAssertEqual(seen.all, [33, 34])  // rejected frames never reach the work
        XCTAssertThrowsError(try video.processVideoFrame(4, timestampInMilliseconds: Int.max))
    }

    func testWorkErrorsPropagateAndImageFramesHaveNoTimestamp() throws {
        let image = try Runner(runningMode: .image, taskName: "Test") { input, frame in
            XCTAssertNil(frame.timestampInMilliseconds)
            XCTAssertFalse(frame.tracksAcrossFrames)
            if input < 0 { throw TasksError.invalidArgument("negative") }
            return "\(input)"
        }
        XCTAssertThrowsError(try image.processImage(-1)) { error in
            XCTAssertEqual(error as? TasksError, .invalidArgument("negative"))
        }
        XCTAssertEqual(try image.processImage(7), "7")
    }

    func testOtherErrorsBecomeInternalErrorsNamingTheTask() throws {
        struct Failure: Error, CustomStringConvertible { var description: String { "disk on fire" } }
        let image = try Runner(runningMode: .image, taskName: "Test task") { _, _ in throw Failure() }
        XCTAssertThrowsError(try image.processImage(1)) { error in
            XCTAssertEqual(error as? TasksError, .internalError("Test task: disk on fire"))
        }
        let delivered = Log<LiveStreamResult<String>>()
        let live = try Runner(
            runningMode: .liveStream, taskName: "Test task", resultHandler: { delivered.append($0) }
        ) { _, _ in throw Failure() }
        try live.processLiveStream(1, timestampInMilliseconds: 5)
        live.waitUntilIdle()
        XCTAssertEqual(delivered.all.map(\.error), [.internalError("Test task: disk on fire")])
    }

    func testAsyncWrappers() async throws {
        let image = try Runner(runningMode: .image, taskName: "Test") { input, _ in "i\(input)" }
        let result = try await image.processImageAsync(5)
        XCTAssertEqual(result, "i5")
        let video = try Runner(runningMode: .video, taskName: "Test") { input, _ in "v\(input)" }
        let first = try await video.processVideoFrameAsync(1, timestampInMilliseconds: 1)
        XCTAssertEqual(first, "v1")
        do {
            _ = try await video.processVideoFrameAsync(2, timestampInMilliseconds: 1)
            XCTFail("expected a timestamp error")
        } catch let error as TasksError {
            XCTAssertEqual(error.code, .invalidArgumentError)
        }
    }

    func testLiveStreamDropsFramesWhileBusyAndDeliversInOrder() throws {
        let gate = DispatchSemaphore(value: 0)
        let delivered = Log<LiveStreamResult<String>>()
        let live = try Runner(
            runningMode: .liveStream, taskName: "Test",
            resultHandler: { delivered.append($0) }
        ) { input, frame in
            XCTAssertEqual(frame.mode, .liveStream)
            if input == 0 { gate.wait() }  // the first frame is slow
            if input == 4 { throw TasksError.internalError("frame 4 failed") }
            return "r\(input)"
        }
        try live.processLiveStream(0, timestampInMilliseconds: 0)
        // Frame 0 is in work: 1 and 2 are dropped (no result), but their timestamps count.
        try live.processLiveStream(1, timestampInMilliseconds: 10)
        try live.processLiveStream(2, timestampInMilliseconds: 20)
        XCTAssertThrowsError(try live.processLiveStream(9, timestampInMilliseconds: 20)) { error in
            XCTAssertEqual(error as? TasksError, .nonMonotonicTimestamp(previousMilliseconds: 20, receivedMilliseconds: 20))
        }
        XCTAssertEqual(live.droppedFrameCount, 2)
        gate.signal()
        live.waitUntilIdle()
        try live.processLiveStream(3, timestampInMilliseconds: 30)
        live.waitUntilIdle()
        try live.processLiveStream(4, timestampInMilliseconds: 40)
        live.waitUntilIdle()
        let results = delivered.all
        XCTAssertEqual(results.map(\.timestampInMilliseconds), [0, 30, 40])
        XCTAssertEqual(results.map(\.value), ["r0", "r3", nil])
        XCTAssertEqual(results.last?.error, .internalError("frame 4 failed"))
        XCTAssertEqual(live.droppedFrameCount, 2)
    }

    func testLiveStreamResultsAsyncSequence() async throws {
        let live = try Runner(
            runningMode: .liveStream, taskName: "Test", resultHandler: { _ in }
        ) { input, _ in "s\(input)" }
        let stream = live.liveStreamResults()
        var iterator = stream.makeAsyncIterator()
        for t in 0..<3 {
            try live.processLiveStream(t, timestampInMilliseconds: t * 100)
            live.waitUntilIdle()
        }
        var values: [String] = []
        for _ in 0..<3 {
            if let next = await iterator.next() { values.append(next.value ?? "error") }
        }
        XCTAssertEqual(values, ["s0", "s1", "s2"])
    }

    func testConcurrentCallersAreSerialised() throws {
        let inWork = Log<Int>()
        let active = NSLock()
        var concurrent = false
        let runner = try Runner(runningMode: .image, taskName: "Test") { input, _ in
            if !active.try() { concurrent = true } else {
                Thread.sleep(forTimeInterval: 0.001)
                active.unlock()
            }
            inWork.append(input)
            return ""
        }
        DispatchQueue.concurrentPerform(iterations: 16) { i in _ = try? runner.processImage(i) }
        XCTAssertFalse(concurrent)
        XCTAssertEqual(Set(inWork.all), Set(0..<16))
    }

    /// A handler slower than the frames: results must not queue up behind it (with pose masks
    /// and a 1 s delegate they would take gigabytes within a minute). Frames are dropped
    /// instead, and every accepted frame's result is delivered.
    func testSlowHandlerDropsFramesInsteadOfQueueingResults() throws {
        let delivered = Log<Int>()
        let runner = try Runner(
            runningMode: .liveStream, taskName: "Test",
            resultHandler: { result in
                Thread.sleep(forTimeInterval: 0.02)
                delivered.append(result.timestampInMilliseconds)
            }
        ) { input, _ in "\(input)" }
        var mostWaiting = 0
        for t in 0..<300 {
            try runner.processLiveStream(t, timestampInMilliseconds: t)
            // Accepted frames whose result has not reached the handler yet.
            let waiting = (t + 1 - runner.droppedFrameCount) - delivered.all.count
            mostWaiting = max(mostWaiting, waiting)
            Thread.sleep(forTimeInterval: 0.001)
        }
        runner.waitUntilIdle()
        XCTAssertLessThanOrEqual(mostWaiting, 2, "results queued for the slow handler")
        XCTAssertGreaterThan(runner.droppedFrameCount, 0)
        XCTAssertEqual(delivered.all.count + runner.droppedFrameCount, 300, "every frame is delivered or counted as dropped")
        XCTAssertEqual(delivered.all, delivered.all.sorted())
    }
}
