import ArgumentParser
import Foundation
import TestSupport
@testable import VisionTasksCLI
import XCTest

/// `vision-tasks serve`'s options from `VISION_TASKS_*` variables (`ServeEnvironment`): one
/// rule for every option, the command line winning, and a bad value named by its variable.
final class ServeEnvironmentTests: XCTestCase {
    /// Every option of `serve --help` has its variable, and no name in the list is stale.
    func testEveryOptionOfTheHelpIsReadFromTheEnvironment() throws {
        let whole = ServeCommand.helpMessage(columns: 200)
        // The options' list, not the examples above it (which quote curl's options too).
        let help = String(whole[(whole.range(of: "OPTIONS:")?.upperBound ?? whole.endIndex)...])
        XCTAssertFalse(help.isEmpty)
        let regex = try NSRegularExpression(pattern: #"--([a-z][a-z-]*)"#)
        let names = Set(regex.matches(in: help, range: NSRange(help.startIndex..., in: help)).compactMap { match in
            Range(match.range(at: 1), in: help).map { String(help[$0]) }
        }).subtracting(["help"])
        XCTAssertEqual(names, Set(ServeCommand.optionNames))
        XCTAssertEqual(ServeEnvironment.variable(for: "max-pending-requests"), "VISION_TASKS_MAX_PENDING_REQUESTS")
    }

    func testVariablesFillOptionsTheCommandLineDoesNotGive() throws {
        let environment = [
            "VISION_TASKS_PORT": "9000", "VISION_TASKS_MAX_SESSIONS": "4", "VISION_TASKS_HOST": "0.0.0.0",
            "VISION_TASKS_ALLOWED_ORIGIN": "https://a.example, https://b.example:8443", "VISION_TASKS_DRAIN_SECONDS": "",
            "VISION_TASKS_LOG_FORMAT": "json", "VISION_TASKS_INSTANCE": "replica-2",
        ]
        let arguments = try ServeEnvironment.arguments(["--port", "9100", "--host=127.0.0.1"], environment: environment)
        let command = try ServeCommand.parse(arguments)
        XCTAssertEqual(command.port, 9100, "the command line wins")
        XCTAssertEqual(command.host, "127.0.0.1", "the command line wins (--flag=value)")
        XCTAssertEqual(command.maxSessions, 4)
        XCTAssertEqual(command.allowedOrigins, ["https://a.example", "https://b.example:8443"])
        XCTAssertEqual(command.drainSeconds, 10, "an empty variable counts as unset")
        XCTAssertEqual(command.logFormat, "json")
        XCTAssertEqual(command.instance, "replica-2")
        // A repeated option on the command line replaces the variable's whole list.
        let origins = try ServeCommand.parse(try ServeEnvironment.arguments(["--allowed-origin", "https://c.example"], environment: environment))
        XCTAssertEqual(origins.allowedOrigins, ["https://c.example"])
    }

    func testThreadsAreSharedUnlessFixed() throws {
        XCTAssertFalse(try ServeCommand.parse([]).fixedThreads, "sessions share the threads by default")
        XCTAssertTrue(try ServeCommand.parse(["--fixed-threads"]).fixedThreads)
        let fixed = try ServeEnvironment.arguments([], environment: ["VISION_TASKS_FIXED_THREADS": "yes", "VISION_TASKS_THREADS": "2"])
        XCTAssertEqual(Set(fixed), ["--fixed-threads", "--threads=2"])
        XCTAssertEqual(try ServeEnvironment.arguments([], environment: ["VISION_TASKS_FIXED_THREADS": "0"]), [])
    }

    func testABadValueNamesItsVariable() {
        for (variable, value) in [
            ("VISION_TASKS_PORT", "http"), ("VISION_TASKS_PORT", "70000"), ("VISION_TASKS_MAX_SESSIONS", "0"),
            ("VISION_TASKS_LOG_FORMAT", "xml"), ("VISION_TASKS_LOG_LEVEL", "loud"), ("VISION_TASKS_ALLOWED_ORIGIN", "ftp://x"),
            ("VISION_TASKS_IDLE_TIMEOUT", "-1"), ("VISION_TASKS_INSTANCE", "two words"),
        ] {
            XCTAssertThrowsError(try ServeEnvironment.arguments([], environment: [variable: value]), variable) { error in
                let message = ServeCommand.message(for: error)
                XCTAssertTrue(message.contains("\(variable)=\(value)"), message)
            }
        }
    }

    /// The program as a container runs it: a bad variable is a usage error (status 64) naming
    /// the variable, before any model is read.
    func testTheProgramRefusesABadVariable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ProcessInfo.processInfo.environment
        environment["VISION_TASKS_MAX_SESSIONS"] = "many"
        let child = try ChildProcess(
            executable: try BuiltTool.path(), arguments: ["serve"],
            stdout: folder.appendingPathComponent("out").path, stderr: folder.appendingPathComponent("err").path,
            environment: environment)
        defer { child.kill() }
        XCTAssertEqual(child.wait(seconds: 60), 64, child.errorText())
        XCTAssertTrue(child.errorText().contains("VISION_TASKS_MAX_SESSIONS=many"), child.errorText())
    }
}
