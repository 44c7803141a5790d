/// Why a zip archive (`ZipArchiveReader`) could not be read. Callers say which archive it was:
/// `TaskBundleError` for `.task` bundles and wheels, `ModelError` for a model's appended archive.
package enum ZipArchiveError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadableFile(path: String, reason: String)
    /// The bytes are not a zip archive, or its directory is damaged.
    case notAZipArchive
    /// A member is damaged: checksum mismatch, truncated data, sizes that contradict each other.
    case corruptMember(name: String, reason: String)
    /// A member name that could escape a folder (absolute, `..`, backslashes) or is empty.
    case unsafeMemberName(name: String)
    /// A member name that appears twice.
    case duplicateMember(name: String)
    /// A member that is not a regular file (a symbolic link).
    case unsupportedMember(name: String, reason: String)
    /// A member, the members' total or their count beyond `ZipArchiveReader.Limits`.
    case tooLarge(what: String, size: UInt64, limit: UInt64)

    package var description: String {
        switch self {
        case let .unreadableFile(path, reason): return "cannot read \(path): \(reason)"
        case .notAZipArchive: return "not a zip archive, or its directory is damaged"
        case let .corruptMember(name, reason): return "member \(name) is damaged: \(reason)"
        case let .unsafeMemberName(name): return "a member has an unsafe name: \(name.debugDescription)"
        case let .duplicateMember(name): return "two members are named \(name)"
        case let .unsupportedMember(name, reason): return "member \(name) is not supported: \(reason)"
        case let .tooLarge(what, size, limit): return "\(what) is \(size) bytes, more than the limit of \(limit)"
        }
    }
}
