@testable import VisionTasksServer
import XCTest

/// How many threads a frame runs on while live sessions and HTTP requests share the cores.
final class ThreadShareTests: XCTestCase {
    func testThreadsAreSplitAmongSessionsAndRequests() {
        let sessions = SessionCounter(limit: 16), requests = SessionCounter(limit: 16)
        let share = ThreadShare(threadsPerTask: 4, sharing: true, sessions: sessions, requests: requests)
        XCTAssertEqual(share.threadsPerFrame, 4, "nobody else: every thread")
        XCTAssertTrue(sessions.open())
        XCTAssertEqual(share.threadsPerFrame, 4, "a lone session: every thread")
        XCTAssertTrue(sessions.open())
        XCTAssertEqual(share.threadsPerFrame, 2, "two sessions: half each")
        XCTAssertTrue(requests.open())
        XCTAssertEqual(share.threadsPerFrame, 1, "two sessions and a request: 4 / 3, rounded down")
        for _ in 0..<5 { XCTAssertTrue(sessions.open()) }
        XCTAssertEqual(share.threadsPerFrame, 1, "never below one")
        for _ in 0..<6 { sessions.close() }
        requests.close()
        XCTAssertEqual(share.threadsPerFrame, 4, "back to every thread when the others close")
    }

    func testFixedThreadsIgnoreTheOthers() {
        let sessions = SessionCounter(limit: 16), requests = SessionCounter(limit: 16)
        let share = ThreadShare(threadsPerTask: 2, sharing: false, sessions: sessions, requests: requests)
        for _ in 0..<3 { XCTAssertTrue(sessions.open()) }
        XCTAssertEqual(share.threadsPerFrame, 2)
    }

    func testShareOfThreads() {
        XCTAssertEqual(ThreadShare.share(of: 2, among: 0), 2)
        XCTAssertEqual(ThreadShare.share(of: 2, among: 1), 2)
        XCTAssertEqual(ThreadShare.share(of: 2, among: 2), 1)
        XCTAssertEqual(ThreadShare.share(of: 8, among: 3), 2)
        XCTAssertEqual(ThreadShare.share(of: 1, among: 16), 1)
    }
}
