import Foundation
import NIOWebSocket
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// Connections that send nothing, trickle their head, idle between requests or in a live
/// session, and more connections than the cap: the server closes them (saying why where it
/// can) and goes on answering others. Timeouts here are a second or two; every wait is
/// bounded so that a connection left open fails the test instead of hanging it.
final class ConnectionRulesTests: XCTestCase {
    /// One server for the timeout tests: header 1 s, keep-alive 1 s, live session 1.5 s, 4
    /// connections at most.
    private static let server = Result {
        var timeouts = ServerTimeouts()
        timeouts.headerRead = .seconds(1)
        timeouts.idle = .seconds(1)
        timeouts.session = .milliseconds(1500)
        var limits = ServerFixture.smallLimits
        limits.maxConnections = 4
        return try VisionServer(configuration: ServerFixture.configuration(limits: limits, timeouts: timeouts))
    }

    /// A connection that sends nothing, one that sent half a request line, and one that sends a
    /// header line every 300 ms (slowloris) are all answered 408 and closed at the header
    /// timeout; `/healthz` is answered meanwhile.
    func testConnectionsWithoutACompleteHeadAreAnswered408AndClosed() async throws {
        let server = try Self.server.get()
        try await server.withDrain { port, _ in
            let silent = try RawClient(port: port)
            let half = try RawClient(port: port)
            try half.send(Array("GET /heal".utf8))
            let slow = try RawClient(port: port)
            try slow.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
            let trickle = Task.detached {
                for i in 0..<40 where !Task.isCancelled {
                    try? slow.send(Array("X-Slow-\(i): 1\r\n".utf8))
                    try? await Task.sleep(for: .milliseconds(300))
                }
            }
            defer { trickle.cancel() }
            let health = try await offThePool { try RawClient.get(port: port, path: "/healthz") }
            XCTAssertTrue(String(decoding: health, as: UTF8.self).contains(#""ok""#))
            for connection in [silent, half, slow] {
                connection.setReceiveTimeout(seconds: 30)
                let head = try await offThePool { try connection.readHead() }
                XCTAssertTrue(head.hasPrefix("HTTP/1.1 408"), head)
                XCTAssertTrue(head.lowercased().contains("connection: close"), head)
                let closed = try await offThePool { try connection.waitForClose() }
                XCTAssertTrue(closed, "still open after its 408")
            }
            let metrics = try await offThePool { try RawClient.get(port: port, path: "/metrics") }
            XCTAssertTrue(String(decoding: metrics, as: UTF8.self).contains(#"vision_tasks_connections_closed_total{reason="headerTimeout"} 3"#))
        }
    }

    /// A kept-alive connection is closed after the idle timeout; a live session that sends
    /// nothing is closed with 1000 and a reason that says so.
    func testIdleKeepAliveConnectionsAndSilentSessionsAreClosed() async throws {
        let server = try Self.server.get()
        try await server.withDrain { port, _ in
            let keptAlive = try RawClient(port: port)
            keptAlive.setReceiveTimeout(seconds: 30)
            let answer = try await offThePool {
                try keptAlive.answer(to: Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            }
            XCTAssertTrue(answer.head.hasPrefix("http/1.1 200"), answer.head)
            let closed = try await offThePool { try keptAlive.waitForClose() }
            XCTAssertTrue(closed, "kept alive past the idle timeout")

            let close = try await liveSession(port: port, timeLimit: .seconds(30)) { reader, _ in
                _ = try await reader.next(type: "ready")
                while try await reader.next() != nil {}
            }
            XCTAssertEqual(close?.closeCode, .normalClosure)
            XCTAssertEqual(close?.reason, "no message for 1.5 s")
        }
    }

    /// Over the cap (4 here): an idle connection is closed to make room for the new one, whose
    /// request is answered; with every connection busy (live sessions), a new one is answered
    /// 503 `tooManyConnections`.
    func testOverTheCapTheLongestIdleConnectionMakesRoom() async throws {
        let server = try Self.server.get()
        try await server.withDrain { port, _ in
            let idle = try (0..<4).map { _ in try RawClient(port: port) }
            for _ in 0..<200 where server.connections.count < 4 { try await Task.sleep(for: .milliseconds(10)) }
            let newcomer = try RawClient(port: port)
            newcomer.setReceiveTimeout(seconds: 30)
            let answer = try await offThePool {
                try newcomer.answer(to: Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
            }
            XCTAssertTrue(answer.head.hasPrefix("http/1.1 200"), answer.head)
            idle[0].setReceiveTimeout(seconds: 30)
            let closed = try await offThePool { try idle[0].waitForClose() }
            XCTAssertTrue(closed, "the oldest idle connection was not closed")
            for connection in idle { connection.shutDown() }
            for _ in 0..<200 where server.connections.count > 0 { try await Task.sleep(for: .milliseconds(10)) }

            let sessions = try await offThePool { try (0..<4).map { _ in try LiveClient(port: port, query: "task=gesture") } }
            let refused = try RawClient(port: port)
            refused.setReceiveTimeout(seconds: 30)
            let head = try await offThePool { try refused.readHead() }
            XCTAssertTrue(head.hasPrefix("HTTP/1.1 503"), head)
            for session in sessions { session.abort() }
        }
    }
}
