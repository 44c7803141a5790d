import Foundation
import XCTest

@testable import VisionTasks

private protocol CountingDelegate: AnyObject, Sendable {
    func task(_ task: FakeTask, didFinish value: Int?, timestamp: Int)
}

private final class FakeTask: @unchecked Sendable {}

private final class Recorder: CountingDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [(ObjectIdentifier, Int?, Int)] = []
    func task(_ task: FakeTask, didFinish value: Int?, timestamp: Int) {
        lock.withLock { calls.append((ObjectIdentifier(task), value, timestamp)) }
    }
    var all: [(ObjectIdentifier, Int?, Int)] { lock.withLock { calls } }
}

/// The relay every task uses for its live-stream delegate: the task is the sender, the
/// delegate and the task are held weakly, and no delegate means no result handler.
final class LiveStreamDelegateRelayTests: XCTestCase {
    private typealias Relay = LiveStreamDelegateRelay<FakeTask, Int>

    private func relay(_ delegate: (any CountingDelegate)?) -> Relay {
        Relay(delegate: delegate) { delegate, task, result in
            delegate.task(task, didFinish: result.value, timestamp: result.timestampInMilliseconds)
        }
    }

    func testDeliversWithTheTaskAsSenderOnceAttached() throws {
        let recorder = Recorder()
        let relay = relay(recorder)
        let handler = try XCTUnwrap(relay.resultHandler)
        handler(LiveStreamResult(timestampInMilliseconds: 1, outcome: .success(10)))
        XCTAssertTrue(recorder.all.isEmpty, "no sender yet: nothing is delivered")
        let task = FakeTask()
        relay.attach(task)
        handler(LiveStreamResult(timestampInMilliseconds: 2, outcome: .success(20)))
        handler(LiveStreamResult(timestampInMilliseconds: 3, outcome: .failure(.internalError("x"))))
        XCTAssertEqual(recorder.all.map(\.0), [ObjectIdentifier(task), ObjectIdentifier(task)])
        XCTAssertEqual(recorder.all.map(\.1), [20, nil])
        XCTAssertEqual(recorder.all.map(\.2), [2, 3])
    }

    func testHoldsTheDelegateAndTheTaskWeakly() throws {
        var recorder: Recorder? = Recorder()
        weak let weakRecorder = recorder
        let relay = relay(recorder)
        var task: FakeTask? = FakeTask()
        weak let weakTask = task
        relay.attach(try XCTUnwrap(task))
        let handler = try XCTUnwrap(relay.resultHandler)
        recorder = nil
        XCTAssertNil(weakRecorder, "the relay does not keep the delegate alive")
        handler(LiveStreamResult(timestampInMilliseconds: 1, outcome: .success(1)))  // no delegate: dropped
        task = nil
        XCTAssertNil(weakTask, "the relay does not keep the task alive")
    }

    func testNoDelegateMeansNoResultHandler() {
        XCTAssertNil(relay(nil).resultHandler)
    }
}
