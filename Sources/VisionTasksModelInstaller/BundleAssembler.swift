import Foundation
import VisionTasks
import ZIPFoundation

/// Builds `.task` bundles (zip archives, members stored uncompressed as in Google's bundles) from
/// installed model files.
enum BundleAssembler {
    /// A fixed member date, so that assembling twice gives the same bytes (in one time zone: zip dates
    /// are local times).
    static let memberDate = Date(timeIntervalSince1970: 1_738_281_600)  // 2025-01-31

    /// Writes a zip of `members` to `url`, which must not exist.
    static func writeZip(_ members: [(name: String, bytes: [UInt8])], to url: URL) throws {
        do {
            let archive = try Archive(url: url, accessMode: .create)
            for member in members {
                let data = Data(member.bytes)
                try archive.addEntry(
                    with: member.name, type: .file, uncompressedSize: Int64(data.count),
                    modificationDate: memberDate, compressionMethod: .none
                ) { position, size in
                    let start = Int(position)
                    return data.subdata(in: start..<min(start + size, data.count))
                }
            }
        } catch let error as ModelInstallerError {
            throw error
        } catch {
            throw ModelInstallerError.fileSystem(path: url.path, reason: "cannot write zip: \(error)")
        }
    }

    /// Writes the bundle described by `layout` to `url`, reading the models from `store` (each is
    /// checked against its SHA-256 first).
    static func assemble(_ layout: [ModelManifest.BundleMember], from store: ModelStore, to url: URL) throws {
        try writeZip(members(of: layout, from: store), to: url)
    }

    private static func members(
        of layout: [ModelManifest.BundleMember], from store: ModelStore
    ) throws -> [(name: String, bytes: [UInt8])] {
        try layout.map { member in
            switch member.content {
            case let .model(file):
                return (member.name, try verifiedBytes(of: file, in: store))
            case let .bundle(children):
                let inner = FileManager.default.temporaryDirectory
                    .appendingPathComponent("vision-tasks-\(UUID().uuidString)-\(member.name)")
                defer { try? FileManager.default.removeItem(at: inner) }
                try writeZip(members(of: children, from: store), to: inner)
                do {
                    return (member.name, [UInt8](try Data(contentsOf: inner)))
                } catch {
                    throw ModelInstallerError.fileSystem(path: inner.path, reason: error.localizedDescription)
                }
            }
        }
    }

    /// The installed file's bytes, after checking them against the manifest.
    static func verifiedBytes(of file: ModelFile, in store: ModelStore) throws -> [UInt8] {
        let url = store.path(for: file)
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try Data(contentsOf: url))
        } catch {
            throw ModelInstallerError.fileSystem(path: url.path, reason: "cannot read: \(error.localizedDescription)")
        }
        let actual = SHA256.hexDigest(of: bytes)
        if let expected = ModelManifest.sha256(of: file), actual != expected {
            throw ModelInstallerError.checksumMismatch(
                file: file.fileName, source: url.path, expected: expected, actual: actual)
        }
        return bytes
    }
}
