import LiteInterpreter

/// Why a `.task` model bundle (or another zip archive, such as a downloaded wheel) could not be read.
///
/// `bundle` names the archive: its file path, or for a nested bundle the outer name followed by the
/// member name (`gesture_recognizer.task/hand_landmarker.task`).
public enum TaskBundleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadableFile(path: String, reason: String)
    /// The bytes are not a zip archive, or its directory is damaged.
    case notAZipArchive(bundle: String)
    /// The bundle has no member of this name (searched in nested bundles too, where the call says so).
    case missingMember(name: String, bundle: String)
    /// A member is damaged: checksum mismatch, truncated data, sizes that contradict each other.
    case corruptMember(name: String, bundle: String, reason: String)
    /// A member name that could escape a folder (absolute, `..`, backslashes) or is empty.
    case unsafeMemberName(name: String, bundle: String)
    /// A member name that appears twice.
    case duplicateMember(name: String, bundle: String)
    /// A member that is not a regular file (a symbolic link).
    case unsupportedMember(name: String, bundle: String, reason: String)
    /// A member larger than `TaskBundle.maximumMemberSize`, or a bundle whose members together are
    /// larger than `TaskBundle.maximumTotalSize` or that has more than `TaskBundle.maximumMemberCount`
    /// members: a zip bomb, or not a model bundle.
    case tooLarge(bundle: String, what: String, size: UInt64, limit: UInt64)
    /// Bundles nested deeper than `TaskBundle.maximumNesting`.
    case nestingTooDeep(bundle: String)

    public var description: String {
        switch self {
        case let .unreadableFile(path, reason):
            return "cannot read model bundle \(path): \(reason)"
        case let .notAZipArchive(bundle):
            return "\(bundle) is not a valid .task bundle (not a zip archive, or its directory is damaged)"
        case let .missingMember(name, bundle):
            return "\(bundle) has no member named \(name)"
        case let .corruptMember(name, bundle, reason):
            return "member \(name) of \(bundle) is damaged: \(reason)"
        case let .unsafeMemberName(name, bundle):
            return "\(bundle) has a member with an unsafe name: \(name.debugDescription)"
        case let .duplicateMember(name, bundle):
            return "\(bundle) has two members named \(name)"
        case let .unsupportedMember(name, bundle, reason):
            return "member \(name) of \(bundle) is not supported: \(reason)"
        case let .tooLarge(bundle, what, size, limit):
            return "\(bundle): \(what) is \(size) bytes, more than the limit of \(limit)"
        case let .nestingTooDeep(bundle):
            return "\(bundle): bundles nested too deeply"
        }
    }
}

extension TaskBundleError {
    /// The reader's error, naming the archive (`bundle`) it came from.
    package init(_ error: ZipArchiveError, bundle: String) {
        switch error {
        case let .unreadableFile(path, reason): self = .unreadableFile(path: path, reason: reason)
        case .notAZipArchive: self = .notAZipArchive(bundle: bundle)
        case let .corruptMember(name, reason): self = .corruptMember(name: name, bundle: bundle, reason: reason)
        case let .unsafeMemberName(name): self = .unsafeMemberName(name: name, bundle: bundle)
        case let .duplicateMember(name): self = .duplicateMember(name: name, bundle: bundle)
        case let .unsupportedMember(name, reason): self = .unsupportedMember(name: name, bundle: bundle, reason: reason)
        case let .tooLarge(what, size, limit): self = .tooLarge(bundle: bundle, what: what, size: size, limit: limit)
        }
    }
}
