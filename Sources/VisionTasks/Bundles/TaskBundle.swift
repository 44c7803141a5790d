import Foundation
import LiteInterpreter

/// A MediaPipe model bundle (`.task` file): a zip archive of `.tflite` models, possibly holding
/// further `.task` bundles (a gesture recognizer bundle holds a hand landmarker bundle).
///
/// Members are found by the names MediaPipe gives them, e.g. `hand_detector.tflite` and
/// `hand_landmarks_detector.tflite` in `hand_landmarker.task`, so Google's official bundles and the
/// ones `vision-tasks models install` assembles are read the same way:
///
/// <!-- snippet-skip: TaskBundle is package API, which users cannot call and DocC does not show -->
/// ```swift
/// let bundle = try TaskBundle(contentsOf: modelsFolder.appendingPathComponent("gesture_recognizer.task"))
/// let detector = try bundle.member(named: "hand_detector.tflite")   // found in hand_landmarker.task
/// ```
///
/// Bundles are untrusted input. Opening one checks the zip directory (member names that could
/// escape a folder, duplicates, sizes beyond `Limits`, sizes a zip bomb would declare) and reads
/// every member, checking its CRC-32; all problems are reported as `TaskBundleError`.
///
/// Differences from MediaPipe: MediaPipe's C++ `ModelAssetBundleResources` keeps the file mapped and
/// hands out views; this type reads the members (a few MB for the known bundles) into memory once,
/// so a value is immutable and `Sendable`. Nested bundles are parsed when asked for.
package struct TaskBundle: Sendable {
    /// Caps that protect against damaged or malicious archives.
    package struct Limits: Sendable, Equatable {
        /// The largest member, uncompressed (default 512 MiB; MediaPipe's models are a few MB).
        package var maximumMemberSize: UInt64
        /// The largest total of all members of one bundle, uncompressed (default 1 GiB).
        package var maximumTotalSize: UInt64
        /// The most members in one archive (default 10 000).
        package var maximumMemberCount: Int
        /// How deep bundles may be nested in one another (default 4).
        package var maximumNesting: Int

        package init(
            maximumMemberSize: UInt64 = 512 << 20, maximumTotalSize: UInt64 = 1 << 30,
            maximumMemberCount: Int = 10_000, maximumNesting: Int = 4
        ) {
            self.maximumMemberSize = maximumMemberSize
            self.maximumTotalSize = maximumTotalSize
            self.maximumMemberCount = maximumMemberCount
            self.maximumNesting = maximumNesting
        }

        /// The limits the archive reader checks.
        var archive: ZipArchiveReader.Limits {
            ZipArchiveReader.Limits(
                maximumMemberSize: maximumMemberSize, maximumTotalSize: maximumTotalSize,
                maximumMemberCount: maximumMemberCount)
        }
    }

    /// The bundle's name in error messages: its file path, `bytes` for `init(bytes:)`, or
    /// `outer/inner.task` for a nested bundle.
    package let name: String
    /// The names of this bundle's own members, in archive order (not those of nested bundles).
    package let memberNames: [String]
    /// The limits this bundle was read with (nested bundles use them too).
    package let limits: Limits
    private let members: [String: [UInt8]]
    /// Nested bundles already read, by member name: a task looks up several models in the same
    /// nested bundle, and reading (inflating, checking the CRC of) it again for each lookup made
    /// creating a gesture recognizer several times slower.
    private let nested = NestedBundles()
    private let depth: Int

    /// Reads the bundle at `url`.
    package init(contentsOf url: URL, limits: Limits = Limits()) throws {
        try self.init(fileURL: url, name: url.path, limits: limits, depth: 0)
    }

    /// Reads a bundle from its bytes (e.g. a `.task` embedded in an app's resources).
    /// `name` is used in error messages. The bytes are read through a temporary file
    /// (`ZipArchiveReader(bytes:limits:)`), which is removed at once.
    package init(bytes: [UInt8], name: String = "bytes", limits: Limits = Limits()) throws {
        try self.init(bytes: bytes, name: name, limits: limits, depth: 0)
    }

    private init(bytes: [UInt8], name: String, limits: Limits, depth: Int) throws {
        try self.init(name: name, limits: limits, depth: depth) { try ZipArchiveReader(bytes: bytes, limits: $0) }
    }

    private init(fileURL: URL, name: String, limits: Limits, depth: Int) throws {
        try self.init(name: name, limits: limits, depth: depth) { try ZipArchiveReader(url: fileURL, limits: $0) }
    }

    private init(
        name: String, limits: Limits, depth: Int, open: (ZipArchiveReader.Limits) throws -> ZipArchiveReader
    ) throws {
        guard depth <= limits.maximumNesting else { throw TaskBundleError.nestingTooDeep(bundle: name) }
        var members: [String: [UInt8]] = [:]
        let names: [String]
        do {
            let reader = try open(limits.archive)
            for member in reader.members {
                members[member.name] = try reader.extract(member)
            }
            names = reader.members.map(\.name)
        } catch let error as ZipArchiveError {
            throw TaskBundleError(error, bundle: name)
        }
        self.name = name
        self.memberNames = names
        self.members = members
        self.limits = limits
        self.depth = depth
    }

    /// Whether this bundle itself (not a nested one) has a member of this name.
    package func hasMember(named name: String) -> Bool {
        members[name] != nil
    }

    /// The bytes of the member called `name`: this bundle's own member if it has one, else the first
    /// found in its nested `.task` bundles (depth first, in archive order).
    ///
    /// - Throws: `TaskBundleError.missingMember` naming the member and this bundle when no bundle
    ///   has it; the error of a nested bundle that cannot be read.
    package func member(named name: String) throws -> [UInt8] {
        if let bytes = try find(name) { return bytes }
        throw TaskBundleError.missingMember(name: name, bundle: self.name)
    }

    /// The nested bundle stored as member `name` (e.g. `hand_landmarker.task` inside
    /// `gesture_recognizer.task`). Only this bundle's own members are searched.
    package func bundle(named name: String) throws -> TaskBundle {
        if let bundle = nested.bundle(named: name) { return bundle }
        guard let bytes = members[name] else {
            throw TaskBundleError.missingMember(name: name, bundle: self.name)
        }
        let bundle = try TaskBundle(bytes: bytes, name: "\(self.name)/\(name)", limits: limits, depth: depth + 1)
        nested.store(bundle, named: name)
        return bundle
    }

    private func find(_ name: String) throws -> [UInt8]? {
        if let bytes = members[name] { return bytes }
        for memberName in memberNames where memberName.hasSuffix(".task") {
            if let bytes = try bundle(named: memberName).find(name) { return bytes }
        }
        return nil
    }
}

/// The nested bundles a `TaskBundle` has read (shared by its copies; read-only bundles, so any
/// thread may add one).
private final class NestedBundles: @unchecked Sendable {
    private let lock = NSLock()
    private var bundles: [String: TaskBundle] = [:]

    func bundle(named name: String) -> TaskBundle? {
        lock.withLock { bundles[name] }
    }

    func store(_ bundle: TaskBundle, named name: String) {
        lock.withLock { bundles[name] = bundle }
    }
}
