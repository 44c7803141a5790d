import Foundation

/// The zip archive that TFLite's metadata writer appends to a `.tflite` file to carry
/// associated files (`labels.txt`, `handedness.txt`). Entries are read once, when the model
/// is loaded, with limits on their number and size.
struct AssociatedFilesArchive: Sendable {
    /// At most 256 associated files of at most 16 MiB each.
    private static let limits = ZipArchiveReader.Limits(
        maximumMemberSize: 16 << 20, maximumTotalSize: 256 << 24, maximumMemberCount: 256)

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
        // Through the checked, file-backed reader: a damaged appended archive is a typed error
        // (ZIPFoundation's in-memory archives crash on out-of-range offsets).
        var files: [String: [UInt8]] = [:]
        do {
            let reader = try ZipArchiveReader(bytes: bytes, limits: Self.limits)
            for member in reader.members {
                files[member.name] = try reader.extract(member)
            }
        } catch let error as ZipArchiveError {
            throw ModelError.malformedMetadata("the zip archive appended to the model: \(error)")
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
