import Foundation
import ZIPFoundation

/// The zip archive that TFLite's metadata writer appends to a `.tflite` file to carry
/// associated files (`labels.txt`, `handedness.txt`). Entries are read once, when the model
/// is loaded, with limits on their number and size.
struct AssociatedFilesArchive: Sendable {
    static let maximumEntries = 256
    static let maximumEntrySize = 16 << 20

    /// File contents by entry path.
    let files: [String: [UInt8]]

    static let empty = AssociatedFilesArchive(files: [:])

    private init(files: [String: [UInt8]]) { self.files = files }

    /// Finds and reads an appended zip archive; a file without one gives an empty archive.
    init(modelBytes bytes: [UInt8]) throws {
        guard AssociatedFilesArchive.hasEndOfCentralDirectory(bytes) else {
            self.files = [:]
            return
        }
        let archive: Archive
        do {
            archive = try Archive(data: Data(bytes), accessMode: .read)
        } catch {
            throw ModelError.malformedMetadata("the zip archive appended to the model cannot be opened: \(error)")
        }
        var files: [String: [UInt8]] = [:]
        var count = 0
        for entry in archive where entry.type == .file {
            count += 1
            guard count <= AssociatedFilesArchive.maximumEntries else {
                throw ModelError.malformedMetadata("the appended zip archive has more than \(AssociatedFilesArchive.maximumEntries) files")
            }
            guard entry.uncompressedSize <= UInt64(AssociatedFilesArchive.maximumEntrySize) else {
                throw ModelError.malformedMetadata("associated file \(entry.path) is \(entry.uncompressedSize) bytes, more than the \(AssociatedFilesArchive.maximumEntrySize)-byte limit")
            }
            var content = [UInt8]()
            do {
                _ = try archive.extract(entry) { chunk in
                    guard content.count + chunk.count <= AssociatedFilesArchive.maximumEntrySize else {
                        throw ModelError.malformedMetadata("associated file \(entry.path) expands past the \(AssociatedFilesArchive.maximumEntrySize)-byte limit")
                    }
                    content.append(contentsOf: chunk)
                }
            } catch let error as ModelError {
                throw error
            } catch {
                throw ModelError.malformedMetadata("associated file \(entry.path) cannot be extracted: \(error)")
            }
            files[entry.path] = content
        }
        self.files = files
    }

    /// Whether the file ends with a zip "end of central directory" record whose comment runs
    /// exactly to the end of the file (so stray bytes in weights are not taken for one).
    static func hasEndOfCentralDirectory(_ bytes: [UInt8]) -> Bool {
        let minimum = 22
        guard bytes.count >= minimum else { return false }
        let lowest = max(0, bytes.count - minimum - 0xffff)
        var position = bytes.count - minimum
        while position >= lowest {
            if bytes[position] == 0x50, bytes[position + 1] == 0x4b, bytes[position + 2] == 0x05, bytes[position + 3] == 0x06 {
                let commentLength = Int(bytes[position + 20]) | Int(bytes[position + 21]) << 8
                if position + minimum + commentLength == bytes.count { return true }
            }
            position -= 1
        }
        return false
    }
}
