/// A bounds-checked view of a flatbuffer: every read checks its range against the buffer and
/// throws `ModelError.malformed` (or the error made by `makeError`) instead of trapping.
///
/// Offsets in a flatbuffer are unsigned and point forward, so following them cannot loop;
/// the schema readers built on this type have a fixed nesting depth, and every vector's length
/// is checked against the bytes that remain before anything is allocated for it.
struct FlatBufferReader {
    let bytes: UnsafeRawBufferPointer
    /// Builds the error thrown for a structural problem (model files and metadata differ).
    let makeError: @Sendable (String) -> ModelError

    init(_ bytes: UnsafeRawBufferPointer, makeError: @escaping @Sendable (String) -> ModelError = { .malformed($0) }) {
        self.bytes = bytes
        self.makeError = makeError
    }

    var count: Int { bytes.count }

    func fail(_ message: String) -> ModelError { makeError(message) }

    /// Checks that `length` bytes at `offset` lie inside the buffer.
    func checkRange(_ offset: Int, _ length: Int, _ what: @autoclosure () -> String) throws {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset else {
            throw fail("\(what()): \(length) bytes at offset \(offset) lie outside the \(count)-byte buffer")
        }
    }

    func load<T: FixedWidthInteger>(_ type: T.Type, at offset: Int, _ what: @autoclosure () -> String) throws -> T {
        try checkRange(offset, MemoryLayout<T>.size, what())
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    func loadFloat(at offset: Int, _ what: @autoclosure () -> String) throws -> Float {
        Float(bitPattern: try load(UInt32.self, at: offset, what()))
    }

    /// The 4-character file identifier at bytes 4..<8, if the buffer is long enough.
    var fileIdentifier: String? {
        guard count >= 8 else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[4..<8]), as: UTF8.self)
    }

    /// The root table, after checking the file identifier when one is expected.
    func rootTable(identifier: String?, context: String) throws -> FlatBufferTable {
        guard count >= 8 else {
            throw fail("\(context): the buffer has \(count) bytes, too short to hold a flatbuffer")
        }
        if let identifier {
            let found = fileIdentifier ?? ""
            guard found == identifier else {
                let shown = found.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 32 && $0.value < 127 } ? "\"\(found)\"" : "unprintable bytes"
                throw fail("\(context): wrong file identifier \(shown), expected \"\(identifier)\"")
            }
        }
        let rootOffset = try load(UInt32.self, at: 0, "\(context) root offset")
        return try table(at: Int(rootOffset), context: context)
    }

    /// The table whose start is `position`, with its vtable checked.
    func table(at position: Int, context: String) throws -> FlatBufferTable {
        let soffset = try load(Int32.self, at: position, "\(context): table start")
        let vtable = position - Int(soffset)
        guard vtable >= 0, vtable <= count - 4 else {
            throw fail("\(context): vtable of the table at offset \(position) is at \(vtable), outside the \(count)-byte buffer")
        }
        let vtableLength = Int(try load(UInt16.self, at: vtable, "\(context): vtable length"))
        let tableLength = Int(try load(UInt16.self, at: vtable + 2, "\(context): table length"))
        guard vtableLength >= 4, vtableLength % 2 == 0 else {
            throw fail("\(context): vtable at offset \(vtable) has an invalid length \(vtableLength)")
        }
        try checkRange(vtable, vtableLength, "\(context): vtable")
        guard tableLength >= 4 else {
            throw fail("\(context): table at offset \(position) has an invalid length \(tableLength)")
        }
        try checkRange(position, tableLength, "\(context): table")
        return FlatBufferTable(reader: self, position: position, vtable: vtable,
                               vtableLength: vtableLength, tableLength: tableLength, context: context)
    }

    /// Follows the unsigned offset stored at `position` (relative to that position).
    func followOffset(at position: Int, _ what: @autoclosure () -> String) throws -> Int {
        let relative = try load(UInt32.self, at: position, what())
        let target = position + Int(relative)
        guard target < count else {
            throw fail("\(what()): offset \(relative) at \(position) points past the end of the \(count)-byte buffer")
        }
        return target
    }

    /// The element count and first element position of the vector whose header is at
    /// `position`, after checking that `count * elementSize` bytes follow.
    func vector(at position: Int, elementSize: Int, _ what: @autoclosure () -> String) throws -> (start: Int, count: Int) {
        let length = Int(try load(UInt32.self, at: position, "\(what()) length"))
        let start = position + 4
        guard length <= (count - min(start, count)) / elementSize else {
            throw fail("\(what()): vector of \(length) elements of \(elementSize) bytes at offset \(start) runs past the end of the \(count)-byte buffer")
        }
        return (start, length)
    }
}
