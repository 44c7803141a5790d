import Foundation
import HTTPTypes
import NIOCore
import NIOWebSocket
import ServiceLifecycle
import TestSupport
import XCTest

@testable import VisionTasksServer

/// `GET /readyz` (`ServerReadiness`) as a load balancer's health check reads it: `starting`
/// before the server listens, 200 `{"status":"ready"}` while a session place is free, 503
/// `notReady` with the reason `noFreeSession` when every place is taken (and 200 again once
/// one is given back), 503 while the server drains; `/healthz` stays 200 throughout; the
/// limits and counts an autoscaler reads are in `/metrics`.
final class ReadinessTests: XCTestCase {
    func testReadyzSaysStartingReadyFullAndDraining() async throws {
        var configuration = try ServerFixture.configuration(maxSessions: 1)
        configuration.drainDuration = .seconds(2)
        configuration.limits.maxPendingRequests = 3
        let server = try VisionServer(configuration: configuration)
        XCTAssertEqual(server.notReadyReason, .starting, "models loaded, not listening yet")
        try await server.withDrain { port, group in
            let client = HTTPTestClient(port: port)
            try await client.execute(uri: "/readyz", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(try ServerFixture.json(response.body)["status"] as? String, "ready")
            }
            try await client.execute(uri: "/readyz", method: .head) { XCTAssertEqual($0.status, .ok) }
            try await client.execute(uri: "/readyz", method: .options) { response in
                XCTAssertEqual(response.status, .noContent)
                XCTAssertEqual(response.headers[.allow], "GET, HEAD, OPTIONS")
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                XCTAssertEqual(Self.value("vision_tasks_max_sessions", in: text), 1)
                XCTAssertEqual(Self.value("vision_tasks_max_pending_requests", in: text), 3)
                XCTAssertEqual(Self.value("vision_tasks_http_requests_in_progress", in: text), 0)
                XCTAssertEqual(Self.value("vision_tasks_open_sessions", in: text), 0)
            }

            try await liveSession(port: port) { reader, outbound in
                _ = try await reader.next(type: "ready")
                try await client.execute(uri: "/readyz", method: .get) { response in
                    XCTAssertEqual(response.status, .serviceUnavailable)
                    XCTAssertEqual(response.headers[.retryAfter], "1")
                    let error = try ServerFixture.json(response.body)["error"] as? [String: Any]
                    XCTAssertEqual(error?["code"] as? String, "notReady")
                    XCTAssertEqual(error?["reason"] as? String, "noFreeSession")
                    XCTAssertNotNil(error?["message"] as? String)
                }
                try await client.execute(uri: "/healthz", method: .get) { XCTAssertEqual($0.status, .ok) }
                try await client.execute(uri: "/metrics", method: .get) { response in
                    XCTAssertEqual(Self.value("vision_tasks_open_sessions", in: String(buffer: response.body)), 1)
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
            // The place is given back once the session has closed.
            var status = HTTPResponse.Status.serviceUnavailable
            for _ in 0..<200 where status != .ok {
                status = try await client.execute(uri: "/readyz", method: .get) { $0.status }
                if status != .ok { try await Task.sleep(for: .milliseconds(50)) }
            }
            XCTAssertEqual(status, .ok)

            // A request in progress (half its body sent) keeps the drain going to its deadline
            // (2 s); an idle connection would be closed at once, and the drain with it.
            let jpeg = [UInt8](try ServerFixture.still("hand_thumb_up_left_01.jpg"))
            let posting = try RawClient(port: port)
            try posting.send(
                Array("POST /v1/gesture HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8) + jpeg.prefix(1000))
            for _ in 0..<400 where server.pendingRequests.current < 1 { try await Task.sleep(for: .milliseconds(10)) }
            XCTAssertEqual(server.pendingRequests.current, 1, "the POST is in progress")
            await group.triggerGracefulShutdown()
            for _ in 0..<400 where !server.drain.isDraining { try await Task.sleep(for: .milliseconds(10)) }
            XCTAssertEqual(server.notReadyReason, .draining)
            // A new connection (a health check's) is answered 503 at once while the server drains.
            let late = try RawClient(port: port)
            late.setReceiveTimeout(seconds: 60)
            try late.send(Array("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            let head = try await offThePool { try late.readHead() }
            XCTAssertTrue(head.hasPrefix("HTTP/1.1 503"), head)
            withExtendedLifetime(posting) {}
        }
    }

    /// The value of an unlabelled metric in Prometheus' text format (`NAME 1.0`).
    static func value(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
    }
}
