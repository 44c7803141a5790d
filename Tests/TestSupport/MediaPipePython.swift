import Foundation

/// The Python with Google's MediaPipe and LiteRT that the compatibility tests run scripts of
/// `scripts/compat/` with: `$VISION_TASKS_PYTHON` when set, else the virtual environment
/// `scripts/test` installs them into (`~/.cache/vision-tasks/mediapipe-venv`). Missing: the test
/// is skipped with a message (fails under CI).
public enum MediaPipePython {
    /// The virtual environment `scripts/test` makes (`vt_ensure_mediapipe_venv`).
    public static var virtualEnvironment: URL {
        FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/vision-tasks/mediapipe-venv")
    }

    /// The interpreter's path.
    public static func interpreter() throws -> String {
        if let python = ProcessInfo.processInfo.environment["VISION_TASKS_PYTHON"], !python.isEmpty { return python }
        let python = virtualEnvironment.appendingPathComponent("bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw SharedTestData.missing(
                "no Python with MediaPipe and LiteRT: run scripts/test (it installs them into \(virtualEnvironment.path)) or set VISION_TASKS_PYTHON")
        }
        return python
    }

    /// Runs `scripts/compat/SCRIPT ARGUMENTS` and returns its stdout. Exit status 3 (the
    /// packages are missing) skips the test, any other failure throws with the script's stderr.
    public static func run(_ script: String, _ arguments: [String]) throws -> Data {
        let python = try interpreter()
        let path = SharedTestData.projectRoot.appendingPathComponent("scripts/compat/\(script)").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, path] + arguments
        // stderr into a file, so that a chatty script never blocks on a full pipe.
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("compat-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let message = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        if process.terminationStatus == 3 {
            throw SharedTestData.missing("\(python) lacks MediaPipe or LiteRT (\(message.trimmingCharacters(in: .whitespacesAndNewlines))): run scripts/test or pip install mediapipe==1.2.2 ai-edge-litert==2.3.0")
        }
        guard process.terminationStatus == 0 else {
            throw SharedTestData.MissingResource(description: "\(script) failed with status \(process.terminationStatus): \(message)")
        }
        return data
    }
}
