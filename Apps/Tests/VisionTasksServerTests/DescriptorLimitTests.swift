import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `vision-tasks serve` started with `ulimit -n 120`, then 150 idle connections: the server
/// keeps below its descriptor limit (its connection cap follows the limit, and the connection
/// idle longest makes room for a new one), so it neither spins on failing accepts nor stops
/// answering: `/healthz` is answered. Before, it spun a core in an accept retry loop and
/// `/healthz` went unanswered.
final class DescriptorLimitTests: XCTestCase {
    func testAtItsDescriptorLimitTheServerStillAnswersHealthChecks() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("serve-fds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let command = "ulimit -n 120 && exec \"$0\" serve --host 127.0.0.1 --port 0 --threads 1 --models \"$1\""
        let server = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", command, try BuiltTool.path(), try SharedTestData.installedModels().path],
            stdout: dir.appendingPathComponent("serve.out").path, stderr: dir.appendingPathComponent("serve.err").path)
        defer { server.kill() }
        XCTAssertTrue(server.wait(seconds: 120) { ServeSignalTests.port(in: server.outputText()) != nil })
        let port = try XCTUnwrap(ServeSignalTests.port(in: server.outputText()), "stderr: \(server.errorText())")
        let pid = server.process.processIdentifier

        let idle = try await offThePool { try (0..<150).map { _ in try RawClient(port: port) } }
        let before = Self.cpuSeconds(pid)
        try await Task.sleep(for: .seconds(3))
        let spent = Self.cpuSeconds(pid) - before
        for _ in 0..<3 {
            let health = try await offThePool { () throws -> String in
                let client = try RawClient(port: port)
                client.setReceiveTimeout(seconds: 30)
                return try client.answer(to: Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)).head
            }
            XCTAssertTrue(health.hasPrefix("http/1.1 200"), health)
        }
        // A spinning accept loop takes the whole 3 s of a core; an idle server almost none.
        // (A bound that catches the spin, with room for a loaded machine, not a speed figure.)
        XCTAssertLessThan(spent, 1.5, "the server used \(spent) s of CPU in 3 s with 150 idle connections")
        server.send(SIGTERM)
        XCTAssertEqual(server.wait(seconds: 60), 0, server.errorText())
        withExtendedLifetime(idle) {}
    }

    /// User and system CPU time of a process, in seconds (from /proc/PID/stat).
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (1-based, whole line).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
