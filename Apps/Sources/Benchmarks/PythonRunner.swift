import Foundation

/// Runs the project's Python helper scripts (LiteRT timing) with `$VISION_TASKS_PYTHON` or
/// `python3` and collects their JSON-lines output.
struct PythonRunner {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The project root (this file is Apps/Sources/Benchmarks/PythonRunner.swift); scripts are
    /// looked up there first, then under the current directory.
    static func script(_ relativePath: String) -> URL? {
        let fromSource = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent(relativePath)
        let fromWorkingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(relativePath)
        return [fromSource, fromWorkingDirectory].first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// `$VISION_TASKS_PYTHON`, else the virtual environment with MediaPipe and LiteRT that
    /// `scripts/test` installs (`~/.cache/vision-tasks/mediapipe-venv`) when it is there, else
    /// `python3`.
    static var interpreter: String {
        let value = ProcessInfo.processInfo.environment["VISION_TASKS_PYTHON"] ?? ""
        if !value.isEmpty { return value }
        let venv = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/vision-tasks/mediapipe-venv/bin/python")
        return FileManager.default.isExecutableFile(atPath: venv.path) ? venv.path : "python3"
    }

    /// A running script that the caller talks to line by line: JSON objects from its stdout,
    /// lines to its stdin.
    final class Session {
        private let process: Process
        private let input: FileHandle
        private let output: FileHandle
        private let errors: Pipe
        private var buffered = Data()
        private let name: String

        /// Starts `script` with `arguments`.
        init(script relativePath: String, arguments: [String]) throws {
            guard let script = PythonRunner.script(relativePath) else { throw Failure(description: "\(relativePath) not found") }
            name = "\(PythonRunner.interpreter) \(relativePath)"
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [PythonRunner.interpreter, script.path] + arguments
            let stdin = Pipe(), stdout = Pipe()
            errors = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = errors
            input = stdin.fileHandleForWriting
            output = stdout.fileHandleForReading
            signal(SIGPIPE, SIG_IGN) // a script that exits early makes send(_:) throw instead
            do {
                try process.run()
            } catch {
                throw Failure(description: "cannot start \(PythonRunner.interpreter): \(error)")
            }
        }

        /// The next stdout line that is a JSON object; throws when the script ended first.
        func nextObject() throws -> [String: Any] {
            while true {
                while let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = buffered[buffered.startIndex..<newline]
                    buffered.removeSubrange(buffered.startIndex...newline)
                    if let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] { return object }
                }
                let chunk = output.availableData
                if chunk.isEmpty { throw endFailure() }
                buffered.append(chunk)
            }
        }

        /// Writes `line` and a newline to the script's stdin.
        func send(_ line: String) throws {
            do {
                try input.write(contentsOf: Data((line + "\n").utf8))
            } catch {
                throw endFailure()
            }
        }

        /// Closes stdin and waits for the script to exit.
        func finish() {
            try? input.close()
            _ = output.readDataToEndOfFile()
            _ = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
        }

        private func endFailure() -> Failure {
            try? input.close()
            let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let reason = errorText.split(separator: "\n").last.map(String.init) ?? "exit status \(process.terminationStatus)"
            return Failure(description: "\(name): \(reason)")
        }
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
