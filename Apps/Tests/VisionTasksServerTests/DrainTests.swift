import Foundation
import NIOCore
import NIOWebSocket
import ServiceLifecycle
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// The shutdown (`ServerDrain`, as SIGTERM starts it in `vision-tasks serve`), inside the test
/// process: with every kind of connection open (one that sent nothing, half a request line, a
/// request whose body is still coming, a live session that reads, one that does not), the
/// request in progress is answered, the reading session is closed with 1001 and a reason,
/// every connection is closed by the drain's deadline, and the server stops. Only the stop
/// itself is bounded (60 s, a hang); nothing is timed.
final class DrainTests: XCTestCase {
    func testTheDrainAnswersRequestsInProgressClosesSessionsWith1001AndEverythingAtTheDeadline() async throws {
        var configuration = try ServerFixture.configuration(limits: ServerFixture.smallLimits)
        configuration.drainDuration = .seconds(2)
        let server = try VisionServer(configuration: configuration)
        let jpeg = [UInt8](try ServerFixture.still("hand_thumb_up_left_01.jpg"))
        let drained = Flag()
        let results = DrainResults()
        try await server.withDrain { port, group in
            let silent = try RawClient(port: port)
            let half = try RawClient(port: port)
            try half.send(Array("GET /heal".utf8))
            let posting = try RawClient(port: port)
            try posting.send(Array("POST /v1/gesture HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8) + jpeg.prefix(1000))
            let deaf = try RawClient(port: port)
            XCTAssertTrue(try deaf.upgrade().hasPrefix("HTTP/1.1 101"))
            var frame = ServerFixture.frame(Data(jpeg), timestamp: 1)
            let framed = RawClient.frame(frame.readBytes(length: frame.readableBytes) ?? [])
            let flood = Task.detached {
                // Frames and no reads: the server's answers fill the socket and its writes wait.
                for _ in 0..<400 where !drained.value { try? deaf.send(framed) }
            }
            let session = Task {
                try await liveSession(port: port, timeLimit: .seconds(60)) { reader, _ in
                    _ = try await reader.next(type: "ready")
                    results.sessionOpened.value = true
                    while try await reader.next() != nil {}
                }
            }
            for _ in 0..<400 where !results.sessionOpened.value || server.pendingRequests.current < 1 {
                try await Task.sleep(for: .milliseconds(25))
            }
            XCTAssertEqual(server.pendingRequests.current, 1, "the POST is not in progress")

            await group.triggerGracefulShutdown()
            // The request in progress finishes after the drain began, and is answered.
            for _ in 0..<400 where !server.drain.isDraining { try await Task.sleep(for: .milliseconds(10)) }
            try posting.send(Array(jpeg.dropFirst(1000)))
            posting.setReceiveTimeout(seconds: 60)
            let answer = try await offThePool { try posting.readHead() }
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer)
            XCTAssertTrue(answer.lowercased().contains("connection: close"), answer)
            let close = try await session.value
            XCTAssertEqual(close?.closeCode, .goingAway)
            XCTAssertEqual(close?.reason, "server shutting down")
            // Every other connection ends too, the deaf one at the deadline at the latest.
            for connection in [silent, half, deaf, posting] {
                connection.setReceiveTimeout(seconds: 60)
                let closed = try await offThePool { try connection.waitForClose() }
                XCTAssertTrue(closed)
            }
            drained.value = true
            await flood.value
            // A new connection is answered 503 and closed.
            let late = try RawClient(port: port)
            late.setReceiveTimeout(seconds: 60)
            let refused = try await offThePool { try late.readHead() }
            XCTAssertTrue(refused.hasPrefix("HTTP/1.1 503"), refused)
        }
        XCTAssertEqual(server.connections.count, 0)
    }
}

/// Flags a drain test's clients set.
final class DrainResults: @unchecked Sendable {
    let sessionOpened = Flag()
}
