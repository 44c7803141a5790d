import Foundation
import NIOCore
import NIOWebSocket
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `vision-tasks serve` as a user runs it: the built program on a free port of 127.0.0.1, with
/// a live session open that has had a frame answered, stopped by SIGTERM or SIGINT (Ctrl-C).
/// The session must get close code 1001 (going away) with a reason and the program must exit
/// with status 0; clients that send nothing, half a request or never read do not keep it
/// alive past `--drain-seconds`, and a second signal closes everything at once. No wall-clock
/// assertion: every wait is bounded only so that a hang fails instead of blocking the suite.
/// (`DrainTests` drains a server inside the test process; these go through the signal
/// handlers of the real program.)
final class ServeSignalTests: XCTestCase {
    func testSIGTERMClosesTheSessionAndExitsZero() async throws {
        try await stopServer(with: SIGTERM)
    }

    func testSIGINTClosesTheSessionAndExitsZero() async throws {
        try await stopServer(with: SIGINT)
    }

    /// Clients that sent nothing, half a request line, or frames they never read the answers
    /// of: SIGTERM still ends the program (status 0), its drain closing them after
    /// `--drain-seconds 2`. Before, such a client kept it running for ever, through any number
    /// of SIGTERMs and SIGINTs.
    func testClientsThatSendNothingOrDoNotReadDoNotKeepItRunning() async throws {
        try await withServer(["--drain-seconds", "2"]) { server, port in
            let stuck = try Self.stuckClients(port: port)
            server.send(SIGTERM)
            XCTAssertEqual(server.wait(seconds: 60), 0, "exit status after SIGTERM; stderr: \(server.errorText())")
            withExtendedLifetime(stuck) {}
        }
    }

    /// With a long drain, a second SIGTERM closes every connection at once and the program
    /// ends: it is done within the 40 s allowed here, though its drain would take 300 s.
    func testASecondSignalClosesEverythingAtOnce() async throws {
        try await withServer(["--drain-seconds", "300"]) { server, port in
            let stuck = try Self.stuckClients(port: port)
            server.send(SIGTERM)
            XCTAssertNil(server.wait(seconds: 1), "it ended before its drain could")
            server.send(SIGTERM)
            XCTAssertNotNil(server.wait(seconds: 40), "a second SIGTERM did not end it; stderr: \(server.errorText())")
            withExtendedLifetime(stuck) {}
        }
    }

    /// A connection that sent nothing, one that sent half a request line, and a live session
    /// that sends frames and never reads its answers.
    static func stuckClients(port: Int) throws -> [RawClient] {
        let silent = try RawClient(port: port)
        let half = try RawClient(port: port)
        try half.send(Array("GET /hea".utf8))
        let deaf = try RawClient(port: port)
        guard try deaf.upgrade().hasPrefix("HTTP/1.1 101") else { throw ServerFixture.TestFailure("no session") }
        var frame = ServerFixture.frame(try ServerFixture.still("hand_thumb_up_left_01.jpg"), timestamp: 1)
        let bytes = RawClient.frame(frame.readBytes(length: frame.readableBytes) ?? [])
        for _ in 0..<100 { try deaf.send(bytes) }
        return [silent, half, deaf]
    }

    private func stopServer(with signal: Int32) async throws {
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        try await withServer([]) { server, port in
            try await self.checkSessionClose(server: server, port: port, signal: signal, jpeg: jpeg)
        }
    }

    /// Runs the built `vision-tasks serve` on a free port with `arguments` added, waits until it
    /// listens, and runs `body`; kills it at the end if it still runs.
    private func withServer(_ arguments: [String], _ body: (ChildProcess, Int) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("serve-signal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ChildProcess(
            executable: try BuiltTool.path(),
            arguments: [
                "serve", "--host", "127.0.0.1", "--port", "0", "--threads", "1", "--models", try SharedTestData.installedModels().path,
            ] + arguments,
            stdout: dir.appendingPathComponent("serve.out").path, stderr: dir.appendingPathComponent("serve.err").path)
        defer { server.kill() }
        // "vision-tasks serve: open http://127.0.0.1:PORT/ (Ctrl-C stops)" once it listens.
        // (Blocking waits: the server is another process, and the session's client runs off
        // the cooperative pool.)
        let started = server.wait(seconds: 120) { Self.port(in: server.outputText()) != nil }
        let port = try XCTUnwrap(Self.port(in: server.outputText()), "no address printed; stderr: \(server.errorText())")
        XCTAssertTrue(started)
        try await body(server, port)
    }

    private func checkSessionClose(server: ChildProcess, port: Int, signal: Int32, jpeg: Data) async throws {

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
        XCTAssertEqual(close?.closeCode, .goingAway, "the session is closed with 1001 on shutdown")
        XCTAssertEqual(close?.reason, "server shutting down")
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
