import Foundation

/// Writes the training feature's files (bundles, classifiers, datasets) atomically: into a
/// hidden temporary file beside the destination, flushed to disk, then renamed over it (one
/// step on POSIX file systems), so that an interrupted write leaves the destination as it was
/// and no file under its name that looks complete.
enum GestureFileWriter {
    static func write(_ bytes: [UInt8], to url: URL) throws {
        func failure(_ what: String) -> GestureTrainingError {
            .fileSystem(path: url.path, reason: "\(what): \(String(cString: strerror(errno)))")
        }
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).partial-\(UUID().uuidString)").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else { throw failure("cannot create a file in its folder") }
        var written = 0
        let complete = bytes.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let count = systemWrite(descriptor, raw.baseAddress.map { $0 + written }, raw.count - written)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return fsync(descriptor) == 0
        }
        let error = complete ? nil : failure("cannot write")
        close(descriptor)
        if let error {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, url.path) == 0 else {
            let error = failure("cannot rename into place")
            unlink(temporary)
            throw error
        }
    }
}

/// POSIX `write(2)` (inside `GestureFileWriter` the name means its own `write`).
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
