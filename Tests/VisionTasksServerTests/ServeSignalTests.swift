import Foundation
import NIOWebSocket
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `vision-tasks serve` as a user runs it: the built program on a free port of 127.0.0.1, with
/// a live session open that has had a frame answered, stopped by SIGTERM or SIGINT (Ctrl-C).
/// The session must get a normal close (1000) and the program must exit with status 0. No
/// wall-clock assertion: every wait is bounded only so that a hang fails instead of blocking
/// the suite. (`RawClientTests.testGracefulShutdownClosesSessions` triggers the same shutdown
/// inside the test process; this one goes through the signal handlers of the real program.)
final class ServeSignalTests: XCTestCase {
    func testSIGTERMClosesTheSessionAndExitsZero() async throws {
        try await stopServer(with: SIGTERM)
    }

    func testSIGINTClosesTheSessionAndExitsZero() async throws {
        try await stopServer(with: SIGINT)
    }

    private func stopServer(with signal: Int32) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("serve-signal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        let server = try ChildProcess(
            executable: try BuiltTool.path(),
            arguments: [
                "serve", "--host", "127.0.0.1", "--port", "0", "--threads", "1", "--models", try SharedTestData.installedModels().path,
            ],
            stdout: dir.appendingPathComponent("serve.out").path, stderr: dir.appendingPathComponent("serve.err").path)
        defer { server.kill() }

        // "vision-tasks serve: open http://127.0.0.1:PORT/ (Ctrl-C stops)" once it listens.
        // (Blocking waits: the server is another process, and the session's client runs off
        // the cooperative pool.)
        let started = server.wait(seconds: 120) { Self.port(in: server.outputText()) != nil }
        let port = try XCTUnwrap(Self.port(in: server.outputText()), "no address printed; stderr: \(server.errorText())")
        XCTAssertTrue(started)

        let pid = server.process.processIdentifier
        let signalled = Flag()
        let close = try await liveSession(port: port, query: "task=gesture") { reader, outbound in
            _ = try await reader.next(type: "ready")
            try await outbound.write(.binary(ServerFixture.frame(jpeg, timestamp: 1)))
            let answer = try await reader.next(type: "result")
            XCTAssertEqual(answer["frame"] as? Int, 1)
            _ = kill(pid, signal)
            signalled.value = true
            // Whatever else the server sends, up to its close frame.
            while try await reader.next() != nil {}
        }
        XCTAssertTrue(signalled.value)
        XCTAssertEqual(close?.closeCode, .normalClosure, "the session is closed with 1000 on shutdown")
        let status = server.wait(seconds: 60)
        XCTAssertEqual(status, 0, "exit status after signal \(signal); stderr: \(server.errorText())")
        XCTAssertEqual(server.process.terminationReason, .exit, "ended by exit, not by the signal")
    }

    /// The port of the address line `vision-tasks serve` prints.
    static func port(in output: String) -> Int? {
        guard let range = output.range(of: #"http://127\.0\.0\.1:\d+/"#, options: .regularExpression) else { return nil }
        return Int(output[range].dropFirst("http://127.0.0.1:".count).dropLast())
    }
}
