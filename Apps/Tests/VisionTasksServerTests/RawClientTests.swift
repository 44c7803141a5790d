import Foundation
import HTTPTypes
import NIOCore
import NIOWebSocket
import ServiceLifecycle
import TestSupport
import VisionTasks
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@testable import VisionTasksServer

/// Clients that misbehave below the WebSocket library: a frame cut off by a disconnect, a
/// client that sends and never reads. The server goes on serving others. And the shutdown.
final class RawClientTests: XCTestCase {
    func testDisconnectMidFrameAndANonReadingClientDoNotHarmOthers() async throws {
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        var framed = ServerFixture.frame(jpeg, timestamp: 1)
        let payload = framed.readBytes(length: framed.readableBytes) ?? []
        try await ServerFixture.server().withLive { client, port in
            // 1. A frame announced in full but cut off by a disconnect.
            let cut = try RawClient(port: port)
            XCTAssertTrue(try cut.upgrade().hasPrefix("HTTP/1.1 101"))
            try cut.send(RawClient.binaryHeader(length: payload.count) + payload.prefix(payload.count / 2))
            // 2. A client that sends frames and never reads its answers.
            let deaf = try RawClient(port: port)
            XCTAssertTrue(try deaf.upgrade().hasPrefix("HTTP/1.1 101"))
            for i in 0..<40 {
                var message = ServerFixture.frame(jpeg, timestamp: i * 40)
                try deaf.send(RawClient.frame(message.readBytes(length: message.readableBytes) ?? []))
            }
            withExtendedLifetime(cut) {}
            // Meanwhile an ordinary session is served.
            try await liveSession(port: port) { reader, outbound in
                _ = try await reader.next(type: "ready")
                for i in 0..<3 {
                    try await outbound.write(.binary(ServerFixture.frame(jpeg, timestamp: i * 100)))
                    let answer = try await reader.next(type: "result")
XCTAssertEqual(answer["timestampInMilliseconds"] as? Int, i * 100)
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
            try await client.execute(uri: "/healthz", method: .get) { XCTAssertEqual($0.status, .ok) }
            withExtendedLifetime(deaf) {}
        }
    }

    /// Beyond `maxPendingRequests` a request is answered 503 `serverBusy` at once, before its
    /// body is read; the others are served. Requests waiting for a core must not each hold their
    /// body, or clients posting at once would take memory without bound (40 clients posting an
    /// 8 MB JPEG each).
    func testRequestsBeyondThePendingLimitAreAnsweredBusyAtOnce() async throws {
        let jpeg = [UInt8](try ServerFixture.still("hand_thumb_up_left_01.jpg"))
        var limits = ServerLimits()
        limits.maxPendingRequests = 2
        let server = try VisionServer(configuration: ServerFixture.configuration(limits: limits))
        let head = Array("POST /v1/hands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(jpeg.count)\r\nConnection: close\r\n\r\n".utf8)
        try await server.withLive { client, port in
            // Two requests whose bodies are still on their way take both places.
            let slow = try (0..<2).map { _ in try RawClient(port: port) }
            for request in slow {
                request.setReceiveTimeout(seconds: 60)
                try request.send(head + jpeg.prefix(100))
            }
            for _ in 0..<400 where server.pendingRequests.current < 2 { try await Task.sleep(for: .milliseconds(25)) }
            XCTAssertEqual(server.pendingRequests.current, 2)
            // One more is refused at once, its body unread.
            let busy = try RawClient(port: port)
            busy.setReceiveTimeout(seconds: 60)
            try busy.send(head + jpeg)
            let refused = try await offThePool { try busy.readHead() }
            XCTAssertTrue(refused.hasPrefix("HTTP/1.1 503"), refused)
            XCTAssertTrue(refused.lowercased().contains("retry-after: 1"), refused)
            // The two in progress finish normally, and then places are free again.
            for request in slow { try request.send(Array(jpeg.dropFirst(100))) }
            for request in slow {
                let answer = try await offThePool { try request.readHead() }
                XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer)
            }
            for _ in 0..<400 where server.pendingRequests.current > 0 { try await Task.sleep(for: .milliseconds(25)) }
            try await client.execute(uri: "/v1/hands", method: .post, body: ByteBuffer(bytes: jpeg)) { response in
                XCTAssertEqual(response.status, .ok)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                XCTAssertTrue(String(buffer: response.body).contains("vision_tasks_errors_total{code=\"serverBusy\"} 1"))
            }
        }
    }

    /// A body that has not arrived within `maxBodyDuration` is answered 408 `requestTimeout`,
    /// its connection closed and its place given back, so a client that trickles its body
    /// cannot hold one of the `maxPendingRequests` places for as long as it likes (a few such
    /// clients would make the server answer everyone else 503).
    func testABodyThatDoesNotArriveInTimeIsAnswered408AndFreesItsPlace() async throws {
        let jpeg = [UInt8](try ServerFixture.still("hand_thumb_up_left_01.jpg"))
        var limits = ServerLimits()
        limits.maxPendingRequests = 1
        limits.maxBodyDuration = .seconds(1)
        let server = try VisionServer(configuration: ServerFixture.configuration(limits: limits))
        let head = Array("POST /v1/hands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8)
        try await server.withLive { client, port in
            let slow = try RawClient(port: port)
            slow.setReceiveTimeout(seconds: 60)
            try slow.send(head + jpeg.prefix(100))
            let answer = try await offThePool { try slow.readHead() }
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 408"), answer)
            XCTAssertTrue(answer.lowercased().contains("connection: close"), answer)
            // The server closes the connection after the answer's JSON body.
            let rest = try await offThePool { () throws -> Int in
                var count = 0
                while let byte = try slow.read(count: 1) { count += byte.count }
                return count
            }
            XCTAssertGreaterThan(rest, 0)
            for _ in 0..<400 where server.pendingRequests.current > 0 { try await Task.sleep(for: .milliseconds(25)) }
            XCTAssertEqual(server.pendingRequests.current, 0)
            try await client.execute(uri: "/v1/hands", method: .post, body: ByteBuffer(bytes: jpeg)) { response in
                XCTAssertEqual(response.status, .ok)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                XCTAssertTrue(String(buffer: response.body).contains("vision_tasks_errors_total{code=\"requestTimeout\"} 1"))
            }
        }
    }

    /// Out-of-range limits are a `ServerConfigurationError` when the server is created, not a
    /// trap later: `--max-image-bytes 9223372036854775807` would overflow at start, and
    /// 4294967296 would trip a precondition in the WebSocket upgrader at the first connection.
    func testLimitsOutOfRangeAreRefusedUpFront() throws {
        for bytes in [Int.max, 1 << 32, 0, -1] {
            var limits = ServerLimits()
            limits.maxImageBytes = bytes
            XCTAssertThrowsError(try VisionServer(configuration: ServerFixture.configuration(limits: limits))) {
                XCTAssertTrue("\($0)".contains("maxImageBytes"), "\($0)")
            }
        }
        var limits = ServerLimits()
        limits.maxTextBytes = Int.max
        XCTAssertThrowsError(try VisionServer(configuration: ServerFixture.configuration(limits: limits)))
        limits = ServerLimits()
        limits.maxPendingRequests = 0
        XCTAssertThrowsError(try VisionServer(configuration: ServerFixture.configuration(limits: limits)))
        limits = ServerLimits()
        limits.maxBodyDuration = .zero
        XCTAssertThrowsError(try VisionServer(configuration: ServerFixture.configuration(limits: limits))) {
            XCTAssertTrue("\($0)".contains("maxBodyDuration"), "\($0)")
        }
        var configuration = try ServerFixture.configuration()
        configuration.port = 70000
        XCTAssertThrowsError(try VisionServer(configuration: configuration)) { XCTAssertTrue("\($0)".contains("port"), "\($0)") }
    }

    /// Graceful shutdown (as on SIGTERM): open sessions are closed (code 1000) and `run` returns.
    func testGracefulShutdownClosesSessions() async throws {
        let server = try ServerFixture.server()
        let port = PortBox()
        let app = server.makeApplication { port.set($0) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: server.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let bound = try await port.wait()
            let opened = Flag()
            tasks.addTask {
                let close = try await liveSession(port: bound) { reader, _ in
                    _ = try await reader.next(type: "ready")
                    opened.value = true
                    while try await reader.next() != nil {}
                }
                XCTAssertEqual(close?.closeCode, .normalClosure)
            }
            for _ in 0..<100 where !opened.value { try await Task.sleep(for: .milliseconds(50)) }
            XCTAssertTrue(opened.value)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}

/// Runs blocking socket work on a dispatch thread, off Swift's cooperative pool (which the
/// server under test shares).
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}

/// The port a server reports once it listens.
final class PortBox: @unchecked Sendable {
    private let lock = NSLock()
    private var port: Int?

    func set(_ value: Int) { lock.withLock { port = value } }

    func wait() async throws -> Int {
        for _ in 0..<200 {
            if let port = lock.withLock({ port }) { return port }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw ServerFixture.TestFailure("the server did not start")
    }
}
