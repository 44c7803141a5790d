import Foundation

/// Writes files so that an interrupted install never leaves a partial file under a final name:
/// data goes to a hidden `.NAME.partial-UUID` file in the same folder, is flushed to disk, and is then
/// renamed over the destination (an atomic step on POSIX file systems).
enum AtomicFile {
    static let partialMarker = ".partial-"

    /// A fresh temporary path beside `destination`.
    static func temporaryURL(for destination: URL) -> URL {
        destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent)\(partialMarker)\(UUID().uuidString)")
    }

    /// Writes `bytes` to `destination` atomically.
    static func write(_ bytes: [UInt8], to destination: URL) throws {
        let temporary = temporaryURL(for: destination)
        guard FileManager.default.createFile(atPath: temporary.path, contents: Data(bytes)) else {
            throw ModelInstallerError.fileSystem(path: temporary.path, reason: "cannot create the file")
        }
        try commit(temporary, to: destination)
    }

    /// Flushes `temporary` to disk and renames it to `destination`; removes it on failure.
    static func commit(_ temporary: URL, to destination: URL) throws {
        do {
            let handle = try FileHandle(forUpdating: temporary)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw ModelInstallerError.fileSystem(path: temporary.path, reason: "cannot flush: \(error.localizedDescription)")
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw ModelInstallerError.fileSystem(path: destination.path, reason: "cannot rename into place: \(reason)")
        }
    }

    /// Removes partial files that an interrupted install left behind, if older than `age` seconds
    /// (younger ones may belong to an install running right now).
    static func removeStalePartials(in directory: URL, olderThan age: TimeInterval) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(".") && name.contains(partialMarker) {
            let url = directory.appendingPathComponent(name)
            let modified = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]) as? Date
            if let modified, Date().timeIntervalSince(modified) > age {
                try? FileManager.default.removeItem(at: url)
            }
        }
    }
}
