import Foundation
import ZIPFoundation

/// Builds small zip archives for tests, and damages them in controlled ways.
enum ZipFixture {
    struct Member {
        var name: String
        var bytes: [UInt8]
        var deflate = false
        var type: Entry.EntryType = .file
    }

    /// A zip holding `members`, as bytes.
    static func zip(_ members: [Member]) throws -> [UInt8] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fixture-\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let archive = try Archive(url: url, accessMode: .create)
            for member in members {
                let data = Data(member.bytes)
                try archive.addEntry(
                    with: member.name, type: member.type, uncompressedSize: Int64(data.count),
                    compressionMethod: member.deflate ? .deflate : .none
                ) { position, size in
                    let start = Int(position)
                    return data.subdata(in: start..<min(start + size, data.count))
                }
            }
        }
        return [UInt8](try Data(contentsOf: url))
    }

    /// A zip with one stored member per (name, bytes).
    static func zip(_ members: [(String, [UInt8])]) throws -> [UInt8] {
        try zip(members.map { Member(name: $0.0, bytes: $0.1) })
    }

    /// Offsets of the central directory headers, in order.
    static func centralDirectoryOffsets(_ bytes: [UInt8]) -> [Int] {
        guard bytes.count >= 4 else { return [] }
        return (0...(bytes.count - 4)).filter {
            bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 0x01 && bytes[$0 + 3] == 0x02
        }
    }

    /// Overwrites a little-endian 32-bit field of the `index`th central directory header
    /// (16: CRC-32, 20: compressed size, 24: uncompressed size).
    static func patchCentralDirectory(_ bytes: inout [UInt8], member index: Int, field: Int, value: UInt32) {
        let offset = centralDirectoryOffsets(bytes)[index] + field
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }

    /// A fake TensorFlow Lite file: the `TFL3` identifier at offset 4, then `count` bytes of filler.
    static func fakeModel(_ seed: UInt8, count: Int = 100) -> [UInt8] {
        [0x1C, 0, 0, 0, 0x54, 0x46, 0x4C, 0x33] + (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }
}
