import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Character devices for tests that write to `/dev/null` or `/dev/full`.
///
/// As root the test gets a private node in its own folder, so that a regression (an output
/// renamed over its target) replaces only that node, never the system's `/dev/null` or
/// `/dev/full`; a non-root user gets the system's own, which it cannot replace.
public enum DeviceNodes {
    /// `/dev/null` (minor 3) or `/dev/full` (minor 7) as `name` in `folder`.
    public static func make(_ name: String, minor: UInt32, in folder: URL) throws -> String {
        let node = folder.appendingPathComponent(name).path
        // makedev(1, minor), a macro Swift does not import.
        if mknod(node, S_IFCHR | 0o666, dev_t((1 << 8) | minor)) == 0 { return node }
        guard getuid() != 0 else { throw XCTSkip("cannot create a device node in \(folder.path)") }
        return "/dev/\(name)"
    }

    /// The file type bits of `path` itself (not following a symlink); 0 when it does not exist.
    public static func fileType(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }
}
