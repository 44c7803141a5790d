import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Outputs that appear complete or not at all: written under a hidden temporary name in the
/// target's own folder (`.partial-TOKEN-NAME`, the same file system), flushed to disk, then
/// renamed onto the target, which `rename(2)` does in one step. A process killed half-way
/// leaves at most a temporary file, never a target that looks finished; the next run that
/// writes the same target removes such leftovers (`removeLeftovers(of:)`).
enum AtomicOutput {
    /// What starts every temporary name.
    static let prefix = ".partial-"

    /// A fresh temporary path beside `target`, keeping its file name (and so its extension, by
    /// which FFmpeg picks a container): `DIR/.partial-<pid>x<random>-NAME`.
    static func temporaryPath(for target: String) -> String {
        let folder = (target as NSString).deletingLastPathComponent
        let token = "\(getpid())x\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        let name = prefix + token + "-" + (target as NSString).lastPathComponent
        return folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
    }

    /// Whether `name` (a file name) is a temporary name of the output named `targetName`.
    static func isTemporary(_ name: String, of targetName: String) -> Bool {
        guard name.hasPrefix(prefix), name.hasSuffix("-" + targetName) else { return false }
        let token = name.dropFirst(prefix.count).dropLast(targetName.count + 1)
        return !token.isEmpty && !token.contains("-")
    }

    /// Creates the folder of `target` (and its parents) if missing, as the driver creates its
    /// output folders.
    static func createFolder(of target: String) throws {
        let folder = (target as NSString).deletingLastPathComponent
        guard !folder.isEmpty else { return }
        try MediaDriver.createDirectory(folder, option: "the folder of \(target),")
    }

    /// Flushes the finished temporary file `temporary` to disk and renames it onto `target`;
    /// on failure the temporary file is removed and an `OutputError` thrown.
    static func commit(_ temporary: String, to target: String) throws {
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            let synced = fsync(fd) == 0 || errno == EINVAL || errno == EROFS
            let reason = OutputFile.lastError()
            _ = close(fd)
            guard synced else {
                unlink(temporary)
                throw OutputError(description: "\(target): write failed: \(reason)")
            }
        }
        guard rename(temporary, target) == 0 else {
            let reason = OutputFile.lastError()
            unlink(temporary)
            throw OutputError(description: "\(target): cannot put the finished file in place: \(reason)")
        }
    }

    /// Removes what earlier runs killed while writing `target` left beside it.
    static func removeLeftovers(of target: String) {
        let folder = (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else { return }
        for entry in entries where isTemporary(entry, of: name) {
            unlink(folder.isEmpty ? entry : (folder as NSString).appendingPathComponent(entry))
        }
    }

    /// Whether `target` is a complete output: a regular file there (only a finished file is
    /// ever renamed onto it).
    static func isComplete(_ target: String) -> Bool {
        var info = stat()
        return lstat(target, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
