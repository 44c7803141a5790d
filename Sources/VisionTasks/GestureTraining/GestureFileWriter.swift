import Foundation

/// Writes the training feature's files (bundles, classifiers, datasets) atomically: under a
/// temporary name beside the destination, flushed, then renamed over it, so that an
/// interrupted write leaves the destination as it was.
enum GestureFileWriter {
    static func write(_ bytes: [UInt8], to url: URL) throws {
        do {
            try AtomicFile.write(bytes, to: url)
        } catch let error as ModelInstallerError {
            if case let .fileSystem(_, reason) = error {
                throw GestureTrainingError.fileSystem(path: url.path, reason: reason)
            }
            throw GestureTrainingError.fileSystem(path: url.path, reason: "\(error)")
        }
    }
}
