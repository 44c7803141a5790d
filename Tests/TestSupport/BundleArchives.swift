import LiteInterpreter
import VisionTasks

/// Task bundles opened and made in tests with the library's own zip reader and writer (the
/// reader's checks and the writer's stored, aligned members, as `vision-tasks models install`
/// and gesture training write them), for tests outside the library package, which cannot
/// reach those `package` types.
public enum BundleArchives {
    /// The member called `name` of the bundle `bytes`.
    public static func member(_ name: String, ofBundle bytes: [UInt8]) throws -> [UInt8] {
        try TaskBundle(bytes: bytes).member(named: name)
    }

    /// A zip archive of `members` (name, bytes), in that order.
    public static func archive(_ members: [(name: String, bytes: [UInt8])]) throws -> [UInt8] {
        try ZipArchiveWriter.archive(members.map { ZipArchiveWriter.Member(name: $0.name, bytes: $0.bytes) })
    }
}
