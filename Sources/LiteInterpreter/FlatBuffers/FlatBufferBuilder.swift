/// Builds a flatbuffer, the writing counterpart of `FlatBufferReader`: objects are written back
/// to front (children before the tables that refer to them), as the format lays them out, and
/// `finish` adds the root offset and file identifier.
///
/// Positions are counted from the end of the buffer, so an `Offset` stays valid while more
/// objects are written in front of it. Every scalar is aligned to its size and every vector's
/// elements to theirs (or more, for TFLite's 16-byte aligned buffers); the finished buffer's
/// length is a multiple of the largest alignment used, so alignment from the end is alignment
/// from the start.
///
/// Tables are written with `startTable()`, `add...(slot:)` calls and `endTable()`; a slot is the
/// field's index in the schema (a union takes two: its type code, then the table). Fields left
/// at their schema default may be omitted, as readers supply the default.
struct FlatBufferBuilder {
    /// A written object (table, vector, string), by its distance from the end of the buffer.
    struct Offset: Hashable {
        fileprivate let position: Int
    }

    /// The bytes, filled from the end: the written part is `storage[(storage.count - used)...]`.
    private var storage: [UInt8]
    private var used = 0
    private var largestAlignment = 1
    /// The fields of the open table: slot and position of each.
    private var tableFields: [(slot: Int, position: Int)] = []
    private var tableStart: Int?

    init(initialCapacity: Int = 1024) {
        storage = [UInt8](repeating: 0, count: max(initialCapacity, 64))
    }

    // MARK: - Raw writing

    /// Makes room for `count` more bytes in front of the written ones.
    private mutating func reserve(_ count: Int) {
        guard storage.count - used < count else { return }
        var capacity = storage.count
        while capacity - used < count { capacity *= 2 }
        var grown = [UInt8](repeating: 0, count: capacity)
        grown.replaceSubrange((capacity - used)..<capacity, with: storage[(storage.count - used)...])
        storage = grown
    }

    /// Zero padding so that, once `following` more bytes are written, the written length is a
    /// multiple of `alignment` (a power of two).
    private mutating func align(_ alignment: Int, following: Int = 0) {
        largestAlignment = max(largestAlignment, alignment)
        let padding = (alignment - (used + following) % alignment) % alignment
        reserve(padding)
        used += padding  // the storage is zero-filled
    }

    private mutating func push<T: FixedWidthInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        align(size)
        reserve(size)
        used += size
        let start = storage.count - used
        var little = value.littleEndian
        withUnsafeBytes(of: &little) { bytes in
            for i in 0..<size { storage[start + i] = bytes[i] }
        }
    }

    private mutating func pushBytes<C: Collection<UInt8>>(_ bytes: C) {
        reserve(bytes.count)
        used += bytes.count
        storage.replaceSubrange((storage.count - used)..<(storage.count - used + bytes.count), with: bytes)
    }

    /// Overwrites the 4 bytes of an already written `Int32` at `position`.
    private mutating func patch(_ value: Int32, at position: Int) {
        let start = storage.count - position
        var little = value.littleEndian
        withUnsafeBytes(of: &little) { bytes in
            for i in 0..<4 { storage[start + i] = bytes[i] }
        }
    }

    /// Writes an unsigned offset to `target`, relative to where it is written.
    private mutating func pushReference(to target: Offset) {
        align(4)
        push(UInt32(used + 4 - target.position))
    }

    // MARK: - Vectors and strings

    /// A string: its UTF-8 bytes with a terminating zero.
    mutating func string(_ value: String) -> Offset {
        let utf8 = Array(value.utf8)
        align(4, following: utf8.count + 1)
        pushBytes([0])
        pushBytes(utf8)
        push(UInt32(utf8.count))
        return Offset(position: used)
    }

    /// A vector of scalars, its elements aligned to `alignment` (at least their size).
    mutating func vector<T: FixedWidthInteger>(_ values: [T], alignment: Int = 1) -> Offset {
        let size = MemoryLayout<T>.size
        align(4, following: size * values.count)
        align(max(size, alignment), following: size * values.count)
        for value in values.reversed() { push(value) }
        push(UInt32(values.count))
        return Offset(position: used)
    }

    /// A vector of 32-bit floats.
    mutating func vector(_ values: [Float]) -> Offset {
        vector(values.map(\.bitPattern))
    }

    /// A vector of bytes, aligned to `alignment` (TFLite's buffers ask for 16).
    mutating func bytes(_ values: [UInt8], alignment: Int = 1) -> Offset {
        align(4, following: values.count)
        align(alignment, following: values.count)
        pushBytes(values)
        push(UInt32(values.count))
        return Offset(position: used)
    }

    /// A vector of tables, strings or vectors.
    mutating func vector(_ offsets: [Offset]) -> Offset {
        align(4, following: 4 * offsets.count)
        for offset in offsets.reversed() { pushReference(to: offset) }
        push(UInt32(offsets.count))
        return Offset(position: used)
    }

    // MARK: - Tables

    /// Starts a table; its fields follow, then `endTable()`. Tables do not nest: write a
    /// table's children (strings, vectors, tables) before starting it.
    mutating func startTable() {
        precondition(tableStart == nil, "flatbuffer tables do not nest: write children first")
        tableStart = used
        tableFields = []
    }

    mutating func add<T: FixedWidthInteger>(_ value: T, slot: Int) {
        push(value)
        tableFields.append((slot, used))
    }

    mutating func add(_ value: Float, slot: Int) {
        add(value.bitPattern, slot: slot)
    }

    mutating func add(_ value: Bool, slot: Int) {
        add(UInt8(value ? 1 : 0), slot: slot)
    }

    /// A field that refers to a table, vector or string written before the table started.
    mutating func add(_ offset: Offset, slot: Int) {
        pushReference(to: offset)
        tableFields.append((slot, used))
    }

    /// Ends the table: writes its vtable and returns the table.
    mutating func endTable() -> Offset {
        guard let start = tableStart else { preconditionFailure("endTable() without startTable()") }
        push(Int32(0))  // the offset to the vtable, patched below
        let table = used
        let slotCount = (tableFields.map(\.slot).max() ?? -1) + 1
        var entries = [UInt16](repeating: 0, count: slotCount)
        for field in tableFields {
            entries[field.slot] = UInt16(table - field.position)
        }
        for entry in entries.reversed() { push(entry) }
        push(UInt16(table - start))  // the table's length
        push(UInt16(4 + 2 * slotCount))  // the vtable's length
        // The vtable lies before the table: the table stores how far back it is.
        patch(Int32(used - table), at: table)
        tableStart = nil
        tableFields = []
        return Offset(position: table)
    }

    // MARK: - Finishing

    /// The finished buffer: the root table's offset, the 4-character file identifier, the rest.
    mutating func finish(root: Offset, identifier: String) -> [UInt8] {
        let tag = Array(identifier.utf8)
        precondition(tag.count == 4, "a flatbuffer file identifier has 4 characters")
        align(max(largestAlignment, 4), following: 8)
        pushBytes(tag)
        pushReference(to: root)
        return Array(storage[(storage.count - used)...])
    }
}
