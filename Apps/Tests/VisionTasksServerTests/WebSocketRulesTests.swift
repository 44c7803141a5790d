import Foundation
import NIOWebSocket
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// RFC 6455's rules on what a client sends: an unmasked frame fails the connection with 1002,
/// a text message that is not UTF-8 with 1007, a reserved opcode with a close frame (1002),
/// not a bare TCP close. Frames are written by hand on a raw socket.
final class WebSocketRulesTests: XCTestCase {
    /// Opens a session, waits for its `ready`, sends `frame`, and returns the code of the
    /// server's close frame (nil when the connection ended without one).
    private static func closeCode(after frame: [UInt8], port: Int) async throws -> (code: Int?, reason: String) {
        try await offThePool {
            let client = try RawClient(port: port)
            client.setReceiveTimeout(seconds: 30)
            let head = try client.upgrade()
            guard head.hasPrefix("HTTP/1.1 101") else { throw ServerFixture.TestFailure("not upgraded: \(head)") }
            guard let ready = try client.readFrame(), ready.opcode == 0x1 else { throw ServerFixture.TestFailure("no ready") }
            try client.send(frame)
            while let answer = try client.readFrame() {
                if answer.opcode == 0x8 {
                    let code = answer.payload.count >= 2 ? Int(answer.payload[0]) << 8 | Int(answer.payload[1]) : nil
                    return (code, String(decoding: answer.payload.dropFirst(2), as: UTF8.self))
                }
            }
            return (nil, "")
        }
    }

    func testFramesThatBreakTheRulesCloseWithTheirCode() async throws {
        let options = Array(#"{"numHands": 2}"#.utf8)
        let unmasked: [UInt8] = [0x81, UInt8(options.count)] + options
        let notUTF8: [UInt8] = [0xFF, 0xFE, 0x7B, 0x7D]
        try await ServerFixture.server().withLive { _, port in
            let (maskCode, maskReason) = try await Self.closeCode(after: unmasked, port: port)
            XCTAssertEqual(maskCode, 1002)
            XCTAssertTrue(maskReason.contains("masked"), maskReason)
            let (textCode, _) = try await Self.closeCode(after: RawClient.header(opcode: 0x1, length: notUTF8.count) + notUTF8, port: port)
            XCTAssertEqual(textCode, 1007)
            let (opcodeCode, _) = try await Self.closeCode(after: RawClient.header(opcode: 0x3, length: 1) + [0], port: port)
            XCTAssertEqual(opcodeCode, 1002)
            // The same messages masked and well-formed are answered.
            let ok = try await offThePool {
                let client = try RawClient(port: port)
                client.setReceiveTimeout(seconds: 30)
                _ = try client.upgrade()
                _ = try client.readFrame()
                try client.send(RawClient.header(opcode: 0x1, length: options.count) + options)
                return try client.readFrame()
            }
            XCTAssertTrue(String(decoding: ok?.payload ?? [], as: UTF8.self).contains(#""numHands":2"#))
        }
    }
}
