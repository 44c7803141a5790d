import CKernels
import Foundation
import ZIPFoundation

/// A zip archive read with the checks that untrusted archives need: `.task` bundles, pip wheels
/// and the archive TFLite's metadata writer appends to a model file all go through it.
///
/// Opening validates the directory: member names (no absolute paths, `..` or backslashes), no
/// duplicates, no symbolic links, declared sizes within `Limits` and consistent with the
/// archive's size (a deflated member cannot be more than 1032 times its compressed size, a stored
/// one is as large as its data). Extraction checks the CRC-32 and that the data has the declared
/// length. Every problem is a `ZipArchiveError`.
///
/// Always file-backed: ZIPFoundation's in-memory archives trap on offsets past the end of the
/// data (a crash, not an error), its file-backed ones read short instead, which the checks here
/// turn into errors. `init(bytes:limits:)` therefore reads bytes through a temporary file.
package final class ZipArchiveReader {
    /// Caps that protect against damaged or malicious archives.
    package struct Limits: Sendable, Equatable {
        /// The largest member, uncompressed.
        package var maximumMemberSize: UInt64
        /// The largest total of all members, uncompressed.
        package var maximumTotalSize: UInt64
        /// The most members.
        package var maximumMemberCount: Int

        package init(maximumMemberSize: UInt64, maximumTotalSize: UInt64, maximumMemberCount: Int) {
            self.maximumMemberSize = maximumMemberSize
            self.maximumTotalSize = maximumTotalSize
            self.maximumMemberCount = maximumMemberCount
        }
    }

    /// A file member: its name and uncompressed size.
    package struct Member {
        package let name: String
        package let size: UInt64
        fileprivate let entry: Entry
    }

    /// The file members, in archive order (directory entries are left out).
    package let members: [Member]
    private let archive: Archive

    /// Deflate never expands more than 1032:1; a larger declared ratio is a lie.
    private static let maximumDeflateRatio: UInt64 = 1032

    /// Reads an archive held in memory, through a temporary file that is removed at once (the
    /// open archive keeps its data readable until the reader is released).
    package convenience init(bytes: [UInt8], limits: Limits) throws {
        let temporary = FileManager.default.temporaryDirectory
            .appendingPathComponent("vision-tasks-archive-\(UUID().uuidString).zip")
        do {
            try Data(bytes).write(to: temporary)
        } catch {
            throw ZipArchiveError.unreadableFile(
                path: temporary.path, reason: "cannot write a temporary copy: \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: temporary) }
        try self.init(url: temporary, limits: limits)
    }

    /// Reads the archive at `url`.
    package init(url: URL, limits: Limits) throws {
        let fileSize: UInt64
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
                throw ZipArchiveError.unreadableFile(path: url.path, reason: "not a regular file")
            }
            fileSize = (attributes[.size] as? NSNumber)?.uint64Value ?? 0
        } catch let error as ZipArchiveError {
            throw error
        } catch {
            let reason = FileManager.default.fileExists(atPath: url.path) ? "\(error.localizedDescription)" : "no such file"
            throw ZipArchiveError.unreadableFile(path: url.path, reason: reason)
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw ZipArchiveError.unreadableFile(path: url.path, reason: "permission denied")
        }
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw ZipArchiveError.notAZipArchive
        }

        var members: [Member] = []
        var seen = Set<String>()
        var total: UInt64 = 0
        var count = 0
        for entry in archive {
            count += 1
            if count > limits.maximumMemberCount {
                throw ZipArchiveError.tooLarge(
                    what: "the member count", size: UInt64(count),
                    limit: UInt64(limits.maximumMemberCount))
            }
            let path = entry.path
            guard Self.isSafe(path) else { throw ZipArchiveError.unsafeMemberName(name: path) }
            switch entry.type {
            case .directory:
                continue
            case .symlink:
                throw ZipArchiveError.unsupportedMember(name: path, reason: "symbolic link")
            case .file:
                break
            }
            guard seen.insert(path).inserted else { throw ZipArchiveError.duplicateMember(name: path) }
            let size = entry.uncompressedSize
            let packed = entry.compressedSize
            if size > limits.maximumMemberSize {
                throw ZipArchiveError.tooLarge(what: "member \(path)", size: size, limit: limits.maximumMemberSize)
            }
            if packed > fileSize {
                throw ZipArchiveError.corruptMember(
                    name: path, reason: "compressed size \(packed) exceeds the archive's size \(fileSize)")
            }
            if entry.isCompressed {
                if size > packed * Self.maximumDeflateRatio + 1024 {
                    throw ZipArchiveError.corruptMember(
                        name: path, reason: "declared size \(size) is impossible for \(packed) compressed bytes")
                }
            } else if size != packed {
                throw ZipArchiveError.corruptMember(
                    name: path, reason: "stored member declares \(size) bytes but holds \(packed)")
            }
            total += size
            if total > limits.maximumTotalSize {
                throw ZipArchiveError.tooLarge(
                    what: "the members' total size", size: total, limit: limits.maximumTotalSize)
            }
            members.append(Member(name: path, size: size, entry: entry))
        }
        self.members = members
    }

    /// The member called `name`, if any.
    package func member(named name: String) -> Member? {
        members.first { $0.name == name }
    }

    /// The member's bytes, checked against its declared size and CRC-32.
    package func extract(_ member: Member) throws -> [UInt8] {
        struct Overflow: Error {}
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(member.size))
        // The CRC-32 is computed here (ck_crc32_update, slicing-by-8) rather than by ZIPFoundation,
        // whose byte-at-a-time loop took a third of creating a gesture recognizer.
        var checksum: UInt32 = 0
        do {
            _ = try archive.extract(member.entry, bufferSize: 1 << 18, skipCRC32: true) { chunk in
                guard UInt64(bytes.count) + UInt64(chunk.count) <= member.size else { throw Overflow() }
                bytes.append(contentsOf: chunk)
                checksum = chunk.withUnsafeBytes { ck_crc32_update(checksum, $0.baseAddress, $0.count) }
            }
        } catch is Overflow {
            throw ZipArchiveError.corruptMember(
                name: member.name, reason: "more data than its declared size \(member.size)")
        } catch {
            throw ZipArchiveError.corruptMember(name: member.name, reason: Self.describe(error))
        }
        guard UInt64(bytes.count) == member.size else {
            throw ZipArchiveError.corruptMember(
                name: member.name, reason: "truncated: \(bytes.count) of \(member.size) bytes")
        }
        guard checksum == member.entry.checksum else {
            throw ZipArchiveError.corruptMember(name: member.name, reason: "CRC-32 mismatch")
        }
        return bytes
    }

    /// Whether a member name stays inside the folder it would be extracted to.
    package static func isSafe(_ path: String) -> Bool {
        if path.isEmpty || path.hasPrefix("/") || path.contains("\\") || path.contains("\u{0}") { return false }
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        if components.contains(where: { $0 == ".." }) { return false }
        if let first = components.first, first.contains(":") { return false }
        return true
    }

    private static func describe(_ error: any Error) -> String {
        if let archiveError = error as? Archive.ArchiveError {
            switch archiveError {
            case .invalidCRC32: return "CRC-32 mismatch"
            case .invalidCompressionMethod: return "unsupported compression method"
            default: return "unreadable data (\(archiveError))"
            }
        }
        return "unreadable data (\(error))"
    }
}
