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
            // (Smaller than an end record: not an archive. Also spares Foundation's read of an
            // empty file, which leaks its 4 KB buffer.)
            guard fileSize >= 22 else { throw ZipArchiveError.notAZipArchive }
            let bytes = try Data(contentsOf: url, options: .mappedIfSafe)
            guard bytes.count == fileSize, Self.directoryIsWithinFile(bytes) else { throw ZipArchiveError.notAZipArchive }
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

    /// Whether the end-of-directory records (zip64 ones included) and every directory entry's
    /// local header offset lie within the file. ZIPFoundation converts these offsets to `off_t`
    /// without checking and traps on one beyond 2^63: `scripts/fuzz taskbundle` found a 117-byte
    /// archive that killed the process that way. Checked here before ZIPFoundation reads them.
    static func directoryIsWithinFile(_ data: Data) -> Bool {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            let size = bytes.count
            func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
            func u32(_ at: Int) -> UInt64 { UInt64(u16(at)) | UInt64(u16(at + 2)) << 16 }
            func u64(_ at: Int) -> UInt64 { u32(at) | u32(at + 4) << 32 }
            // The end-of-central-directory record: 22 bytes plus a comment of up to 65535.
            guard size >= 22 else { return false }
            var eocd = size - 22
            while eocd >= 0, eocd >= size - 22 - 0xFFFF, u32(eocd) != 0x0605_4B50 { eocd -= 1 }
            guard eocd >= 0, eocd >= size - 22 - 0xFFFF else { return false }
            var count = UInt64(u16(eocd + 10)), directorySize = u32(eocd + 12), directoryStart = u32(eocd + 16)
            // A zip64 locator just before it points at the zip64 record, which then holds the values.
            if eocd >= 20, u32(eocd - 20) == 0x0706_4B50 {
                let record = u64(eocd - 20 + 8)
                guard record <= UInt64(eocd - 20), UInt64(eocd - 20) - record >= 56,
                      u32(Int(record)) == 0x0606_4B50 else { return false }
                count = u64(Int(record) + 32)
                directorySize = u64(Int(record) + 40)
                directoryStart = u64(Int(record) + 48)
            }
            guard directoryStart <= UInt64(size), directorySize <= UInt64(size) - directoryStart,
                  count <= directorySize / 46 else { return false }
            // Every entry: its names and extra fields within the directory, its local header (and
            // any zip64 offset in its extra field) within the file.
            var entry = Int(directoryStart)
            let end = Int(directoryStart + directorySize)
            for _ in 0..<count {
                guard end - entry >= 46, u32(entry) == 0x0201_4B50 else { return false }
                let nameLength = u16(entry + 28), extraLength = u16(entry + 30), commentLength = u16(entry + 32)
                guard end - entry - 46 >= nameLength + extraLength + commentLength else { return false }
                let offset32 = u32(entry + 42)
                guard offset32 == 0xFFFF_FFFF || offset32 < UInt64(size) else { return false }
                var field = entry + 46 + nameLength
                let extraEnd = field + extraLength
                while extraEnd - field >= 4 {
                    let id = u16(field), length = u16(field + 2)
                    guard extraEnd - field - 4 >= length else { return false }
                    if id == 1 {
                        // Zip64 values: each must fit in a signed 64-bit offset; the local header's
                        // (the one after the sizes that are present) must be within the file.
                        var value = field + 4
                        let present = [u32(entry + 24) == 0xFFFF_FFFF, u32(entry + 20) == 0xFFFF_FFFF, offset32 == 0xFFFF_FFFF]
                        for (index, isPresent) in present.enumerated() where isPresent {
                            guard field + 4 + length - value >= 8 else { return false }
                            let v = u64(value)
                            guard v < 1 << 62, index < 2 || v < UInt64(size) else { return false }
                            value += 8
                        }
                    }
                    field += 4 + length
                }
                entry += 46 + nameLength + extraLength + commentLength
            }
            return true
        }
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
