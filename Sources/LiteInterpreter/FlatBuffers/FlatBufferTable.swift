/// One table of a flatbuffer, with bounds-checked field accessors. `context` names the table
/// ("subgraph 0, tensor 12") for error messages.
struct FlatBufferTable {
    let reader: FlatBufferReader
    let position: Int
    let vtable: Int
    let vtableLength: Int
    let tableLength: Int
    let context: String

    /// The absolute position of field `slot`, or nil when the field is absent.
    func fieldPosition(_ slot: Int, size: Int, name: String) throws -> Int? {
        let entry = 4 + 2 * slot
        guard entry + 2 <= vtableLength else { return nil }
        let offset = Int(try reader.load(UInt16.self, at: vtable + entry, "\(context): vtable entry of '\(name)'"))
        if offset == 0 { return nil }
        guard offset + size <= tableLength else {
            throw reader.fail("\(context): field '\(name)' at offset \(offset) lies outside its \(tableLength)-byte table")
        }
        return position + offset
    }

    func scalar<T: FixedWidthInteger>(_ slot: Int, _ name: String, default value: T) throws -> T {
        guard let at = try fieldPosition(slot, size: MemoryLayout<T>.size, name: name) else { return value }
        return try reader.load(T.self, at: at, "\(context): field '\(name)'")
    }

    func float(_ slot: Int, _ name: String, default value: Float) throws -> Float {
        guard let at = try fieldPosition(slot, size: 4, name: name) else { return value }
        return try reader.loadFloat(at: at, "\(context): field '\(name)'")
    }

    func bool(_ slot: Int, _ name: String, default value: Bool = false) throws -> Bool {
        try scalar(slot, name, default: UInt8(value ? 1 : 0)) != 0
    }

    /// The position a reference field points to, or nil when absent.
    func reference(_ slot: Int, _ name: String) throws -> Int? {
        guard let at = try fieldPosition(slot, size: 4, name: name) else { return nil }
        return try reader.followOffset(at: at, "\(context): field '\(name)'")
    }

    func table(_ slot: Int, _ name: String, context childContext: String? = nil) throws -> FlatBufferTable? {
        guard let target = try reference(slot, name) else { return nil }
        return try reader.table(at: target, context: childContext ?? "\(context), \(name)")
    }

    func string(_ slot: Int, _ name: String) throws -> String? {
        guard let target = try reference(slot, name) else { return nil }
        let (start, length) = try reader.vector(at: target, elementSize: 1, "\(context): string '\(name)'")
        return String(decoding: UnsafeRawBufferPointer(rebasing: reader.bytes[start..<(start + length)]), as: UTF8.self)
    }

    /// The byte range of a vector of `elementSize`-byte scalars, or nil when absent.
    func vectorRange(_ slot: Int, _ name: String, elementSize: Int) throws -> (start: Int, count: Int)? {
        guard let target = try reference(slot, name) else { return nil }
        return try reader.vector(at: target, elementSize: elementSize, "\(context): vector '\(name)'")
    }

    func scalars<T: FixedWidthInteger>(_ slot: Int, _ name: String, as type: T.Type) throws -> [T]? {
        let size = MemoryLayout<T>.size
        guard let (start, count) = try vectorRange(slot, name, elementSize: size) else { return nil }
        var values = [T]()
        values.reserveCapacity(count)
        for i in 0..<count {
            values.append(T(littleEndian: reader.bytes.loadUnaligned(fromByteOffset: start + i * size, as: T.self)))
        }
        return values
    }

    func floats(_ slot: Int, _ name: String) throws -> [Float]? {
        try scalars(slot, name, as: UInt32.self)?.map { Float(bitPattern: $0) }
    }

    func bytes(_ slot: Int, _ name: String) throws -> [UInt8]? {
        guard let (start, count) = try vectorRange(slot, name, elementSize: 1) else { return nil }
        return Array(reader.bytes[start..<(start + count)])
    }

    /// The tables of a vector of tables; `childContext(i)` names element i.
    func tables(_ slot: Int, _ name: String, childContext: (Int) -> String) throws -> [FlatBufferTable] {
        guard let (start, count) = try vectorRange(slot, name, elementSize: 4) else { return [] }
        var result = [FlatBufferTable]()
        result.reserveCapacity(count)
        for i in 0..<count {
            let element = start + 4 * i
            let target = try reader.followOffset(at: element, "\(context): \(name)[\(i)]")
            result.append(try reader.table(at: target, context: childContext(i)))
        }
        return result
    }

    /// The number of elements of a vector (0 when absent), without reading them.
    func vectorCount(_ slot: Int, _ name: String) throws -> Int {
        try vectorRange(slot, name, elementSize: 4)?.count ?? 0
    }
}
