import CKernels

/// Writes zip archives of stored (uncompressed) members in memory, the form MediaPipe's `.task`
/// bundles and TFLite's associated files take: a reader can use each member's bytes in place,
/// so every member's data starts at a multiple of `alignment` from the start of the file (the
/// local header's extra field carries the padding, as Android's zipalign does, so the archive
/// stays valid for readers that walk it from the front).
///
/// Output is deterministic: members in the order given, a fixed modification date, no
/// platform-dependent attributes. Members are limited to the classic zip format's 4 GiB.
package enum ZipArchiveWriter {
    /// One member: its path in the archive and its bytes.
    package struct Member: Sendable {
        package var name: String
        package var bytes: [UInt8]

        package init(name: String, bytes: [UInt8]) {
            self.name = name
            self.bytes = bytes
        }
    }

    /// 2025-01-31 00:00 as an MS-DOS date and time (the members' modification date).
    static let dosDate: UInt16 = (45 << 9) | (1 << 5) | 31
    static let dosTime: UInt16 = 0
    /// The extra field ID of the alignment padding (the one zipalign uses).
    static let paddingFieldID: UInt16 = 0xD935

    /// The archive of `members`, laid out as if it started `startOffset` bytes into a file:
    /// TFLite appends the archive of a model's associated files to the model, and its offsets
    /// count from the start of the model file.
    /// - Throws: `ZipArchiveError.unsafeMemberName` for a name a reader would refuse,
    ///   `.duplicateMember`, `.tooLarge` beyond 4 GiB.
    package static func archive(_ members: [Member], startOffset: Int = 0, alignment: Int = 4) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(members.reduce(0) { $0 + $1.bytes.count + 128 } + 22)
        var central: [UInt8] = []
        var names: Set<String> = []
        let limit = UInt64(UInt32.max)
        for member in members {
            guard ZipArchiveReader.isSafe(member.name) else { throw ZipArchiveError.unsafeMemberName(name: member.name) }
            guard names.insert(member.name).inserted else { throw ZipArchiveError.duplicateMember(name: member.name) }
            guard UInt64(member.bytes.count) < limit, UInt64(startOffset + out.count) < limit else {
                throw ZipArchiveError.tooLarge(what: "member \(member.name)", size: UInt64(member.bytes.count), limit: limit)
            }
            let name = Array(member.name.utf8)
            let headerOffset = startOffset + out.count
            var padding = (alignment - (headerOffset + 30 + name.count) % alignment) % alignment
            if padding > 0 && padding < 4 { padding += alignment }  // room for the field's own header
            let checksum = member.bytes.withUnsafeBytes { ck_crc32_update(0, $0.baseAddress, $0.count) }
            // UTF-8 names are flagged as such (general purpose bit 11).
            let flags: UInt16 = name.allSatisfy { $0 < 0x80 } ? 0 : 0x0800
            let size = UInt32(member.bytes.count)

            append(UInt32(0x0403_4B50), to: &out)
            append(UInt16(20), to: &out)  // version needed: 2.0
            append(flags, to: &out)
            append(UInt16(0), to: &out)  // stored
            append(dosTime, to: &out)
            append(dosDate, to: &out)
            append(checksum, to: &out)
            append(size, to: &out)
            append(size, to: &out)
            append(UInt16(name.count), to: &out)
            append(UInt16(padding), to: &out)
            out += name
            if padding > 0 {
                append(paddingFieldID, to: &out)
                append(UInt16(padding - 4), to: &out)
                out += [UInt8](repeating: 0, count: padding - 4)
            }
            out += member.bytes

            append(UInt32(0x0201_4B50), to: &central)
            append(UInt16(3 << 8 | 20), to: &central)  // made by: Unix, 2.0
            append(UInt16(20), to: &central)
            append(flags, to: &central)
            append(UInt16(0), to: &central)
            append(dosTime, to: &central)
            append(dosDate, to: &central)
            append(checksum, to: &central)
            append(size, to: &central)
            append(size, to: &central)
            append(UInt16(name.count), to: &central)
            append(UInt16(0), to: &central)  // extra field
            append(UInt16(0), to: &central)  // comment
            append(UInt16(0), to: &central)  // disk
            append(UInt16(0), to: &central)  // internal attributes
            append(UInt32(0o100644) << 16, to: &central)  // a regular file, rw-r--r--
            append(UInt32(headerOffset), to: &central)
            central += name
        }
        let directoryOffset = startOffset + out.count
        guard members.count < 0xFFFF, UInt64(directoryOffset + central.count) < limit else {
            throw ZipArchiveError.tooLarge(what: "the archive", size: UInt64(directoryOffset + central.count), limit: limit)
        }
        out += central
        append(UInt32(0x0605_4B50), to: &out)
        append(UInt16(0), to: &out)
        append(UInt16(0), to: &out)
        append(UInt16(members.count), to: &out)
        append(UInt16(members.count), to: &out)
        append(UInt32(central.count), to: &out)
        append(UInt32(directoryOffset), to: &out)
        append(UInt16(0), to: &out)  // comment
        return out
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
