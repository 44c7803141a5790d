import Foundation
import ZIPFoundation

/// A zip archive on disk, read with the checks that untrusted archives need.
///
/// Opening validates the directory: member names (no absolute paths, `..` or backslashes), no
/// duplicates, no symbolic links, declared sizes within limits and consistent with the archive's
/// size (a deflated member cannot be more than 1032 times its compressed size, a stored one is as
/// large as its data). Extraction checks the CRC-32 and that the data has the declared length.
///
/// Always file-backed: ZIPFoundation's in-memory archives trap on offsets past the end of the data,
/// its file-backed ones read short instead, which the checks here turn into errors.
final class ZipArchiveReader {
    struct Member {
        let name: String
        let size: UInt64
        fileprivate let entry: Entry
    }

    /// The name used in error messages.
    let name: String
    /// The file members, in archive order (directory entries are left out).
    let members: [Member]
    private let archive: Archive

    /// Deflate never expands more than 1032:1; a larger declared ratio is a lie.
    private static let maximumDeflateRatio: UInt64 = 1032

    init(url: URL, name: String, limits: TaskBundle.Limits) throws {
        self.name = name
        let fileSize: UInt64
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
                throw TaskBundleError.unreadableFile(path: url.path, reason: "not a regular file")
            }
            fileSize = (attributes[.size] as? NSNumber)?.uint64Value ?? 0
        } catch let error as TaskBundleError {
            throw error
        } catch {
            let reason = FileManager.default.fileExists(atPath: url.path) ? "\(error.localizedDescription)" : "no such file"
            throw TaskBundleError.unreadableFile(path: url.path, reason: reason)
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw TaskBundleError.unreadableFile(path: url.path, reason: "permission denied")
        }
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw TaskBundleError.notAZipArchive(bundle: name)
        }

        var members: [Member] = []
        var seen = Set<String>()
        var total: UInt64 = 0
        var count = 0
        for entry in archive {
            count += 1
            if count > limits.maximumMemberCount {
                throw TaskBundleError.tooLarge(
                    bundle: name, what: "the member count", size: UInt64(count),
                    limit: UInt64(limits.maximumMemberCount))
            }
            let path = entry.path
            guard Self.isSafe(path) else { throw TaskBundleError.unsafeMemberName(name: path, bundle: name) }
            switch entry.type {
            case .directory:
                continue
            case .symlink:
                throw TaskBundleError.unsupportedMember(name: path, bundle: name, reason: "symbolic link")
            case .file:
                break
            }
            guard seen.insert(path).inserted else { throw TaskBundleError.duplicateMember(name: path, bundle: name) }
            let size = entry.uncompressedSize
            let packed = entry.compressedSize
            if size > limits.maximumMemberSize {
                throw TaskBundleError.tooLarge(bundle: name, what: "member \(path)", size: size, limit: limits.maximumMemberSize)
            }
            if packed > fileSize {
                throw TaskBundleError.corruptMember(
                    name: path, bundle: name, reason: "compressed size \(packed) exceeds the archive's size \(fileSize)")
            }
            if entry.isCompressed {
                if size > packed * Self.maximumDeflateRatio + 1024 {
                    throw TaskBundleError.corruptMember(
                        name: path, bundle: name,
                        reason: "declared size \(size) is impossible for \(packed) compressed bytes")
                }
            } else if size != packed {
                throw TaskBundleError.corruptMember(
                    name: path, bundle: name, reason: "stored member declares \(size) bytes but holds \(packed)")
            }
            total += size
            if total > limits.maximumTotalSize {
                throw TaskBundleError.tooLarge(
                    bundle: name, what: "the members' total size", size: total, limit: limits.maximumTotalSize)
            }
            members.append(Member(name: path, size: size, entry: entry))
        }
        self.members = members
    }

    func member(named name: String) -> Member? {
        members.first { $0.name == name }
    }

    /// The member's bytes, checked against its declared size and CRC-32.
    func extract(_ member: Member) throws -> [UInt8] {
        struct Overflow: Error {}
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(member.size))
        let checksum: CRC32
        do {
            checksum = try archive.extract(member.entry, bufferSize: 1 << 18, skipCRC32: false) { chunk in
                guard UInt64(bytes.count) + UInt64(chunk.count) <= member.size else { throw Overflow() }
                bytes.append(contentsOf: chunk)
            }
        } catch is Overflow {
            throw TaskBundleError.corruptMember(
                name: member.name, bundle: name, reason: "more data than its declared size \(member.size)")
        } catch {
            throw TaskBundleError.corruptMember(name: member.name, bundle: name, reason: Self.describe(error))
        }
        guard UInt64(bytes.count) == member.size else {
            throw TaskBundleError.corruptMember(
                name: member.name, bundle: name, reason: "truncated: \(bytes.count) of \(member.size) bytes")
        }
        guard checksum == member.entry.checksum else {
            throw TaskBundleError.corruptMember(name: member.name, bundle: name, reason: "CRC-32 mismatch")
        }
        return bytes
    }

    /// Whether a member name stays inside the folder it would be extracted to.
    static func isSafe(_ path: String) -> Bool {
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
