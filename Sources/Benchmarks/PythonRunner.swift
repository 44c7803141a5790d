import Foundation

/// Runs the project's Python helper scripts (LiteRT timing) with `$VISION_TASKS_PYTHON` or
/// `python3` and collects their JSON-lines output.
struct PythonRunner {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The project root (this file is Sources/Benchmarks/PythonRunner.swift); scripts are
    /// looked up there first, then under the current directory.
    static func script(_ relativePath: String) -> URL? {
        let fromSource = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(relativePath)
        let fromWorkingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(relativePath)
        return [fromSource, fromWorkingDirectory].first { FileManager.default.fileExists(atPath: $0.path) }
    }

    static var interpreter: String {
        let value = ProcessInfo.processInfo.environment["VISION_TASKS_PYTHON"] ?? ""
        return value.isEmpty ? "python3" : value
    }

    /// Runs `script` with `arguments`; returns each stdout line parsed as a JSON object.
    static func run(script relativePath: String, arguments: [String]) throws -> [[String: Any]] {
        guard let script = script(relativePath) else { throw Failure(description: "\(relativePath) not found") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [interpreter, script.path] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot start \(interpreter): \(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let reason = errorText.split(separator: "\n").last.map(String.init) ?? "exit status \(process.terminationStatus)"
            throw Failure(description: "\(interpreter) \(relativePath): \(reason)")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }
}
