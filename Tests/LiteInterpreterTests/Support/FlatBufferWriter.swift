/// A minimal flatbuffer writer for tests (no flatc here): objects are laid out front to back,
/// each table preceded by its vtable and followed by the objects it refers to, so every
/// reference is a forward unsigned offset as the format requires.
indirect enum FBObject {
    case table([(slot: Int, value: FBField)])
    /// A vector of scalars given as raw little-endian bytes.
    case vector(elementSize: Int, bytes: [UInt8])
    case string(String)
    case tables([FBObject])

    static func int32s(_ values: [Int32]) -> FBObject { .vector(elementSize: 4, bytes: values.flatMap { le($0) }) }
    static func floats(_ values: [Float]) -> FBObject { .vector(elementSize: 4, bytes: values.flatMap { le($0.bitPattern) }) }
    static func bytes(_ values: [UInt8]) -> FBObject { .vector(elementSize: 1, bytes: values) }
}

enum FBField {
    case int8(Int8), uint8(UInt8), int16(Int16), uint16(UInt16), int32(Int32), uint32(UInt32)
    case int64(Int64), uint64(UInt64), float(Float), bool(Bool)
    case object(FBObject)

    var size: Int {
        switch self {
        case .int8, .uint8, .bool: return 1
        case .int16, .uint16: return 2
        case .int32, .uint32, .float, .object: return 4
        case .int64, .uint64: return 8
        }
    }

    var bytes: [UInt8] {
        switch self {
        case let .int8(v): return [UInt8(bitPattern: v)]
        case let .uint8(v): return [v]
        case let .bool(v): return [v ? 1 : 0]
        case let .int16(v): return le(v)
        case let .uint16(v): return le(v)
        case let .int32(v): return le(v)
        case let .uint32(v): return le(v)
        case let .float(v): return le(v.bitPattern)
        case let .int64(v): return le(v)
        case let .uint64(v): return le(v)
        case .object: return [0, 0, 0, 0]
        }
    }
}

func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

struct FlatBufferWriter {
    private(set) var bytes: [UInt8] = []

    static func serialize(root: FBObject, identifier: String) -> [UInt8] {
        var writer = FlatBufferWriter()
        writer.bytes = [0, 0, 0, 0] + Array(identifier.utf8.prefix(4))
        let position = writer.write(root)
        writer.patch(at: 0, target: position)
        return writer.bytes
    }

    private mutating func align(_ alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    /// Writes the uoffset at `at` pointing to `target`.
    private mutating func patch(at: Int, target: Int) {
        let value = le(UInt32(target - at))
        for i in 0..<4 { bytes[at + i] = value[i] }
    }

    /// Writes `object`; returns the position references point to.
    @discardableResult
    mutating func write(_ object: FBObject) -> Int {
        switch object {
        case let .string(text):
            align(4)
            let start = bytes.count
            bytes += le(UInt32(text.utf8.count)) + Array(text.utf8) + [0]
            return start
        case let .vector(elementSize, raw):
            // Elements aligned to their size (at least 4 for the length).
            while (bytes.count + 4) % max(elementSize, 4) != 0 { bytes.append(0) }
            let start = bytes.count
            bytes += le(UInt32(raw.count / elementSize)) + raw
            return start
        case let .tables(items):
            align(4)
            let start = bytes.count
            bytes += le(UInt32(items.count))
            let slots = (0..<items.count).map { start + 4 + 4 * $0 }
            bytes += [UInt8](repeating: 0, count: 4 * items.count)
            for (slot, item) in zip(slots, items) { patch(at: slot, target: write(item)) }
            return start
        case let .table(fields):
            // Inline layout: soffset, then fields sorted by size (largest first) for alignment.
            let maxSlot = fields.map(\.slot).max() ?? -1
            var layout: [(slot: Int, field: FBField, offset: Int)] = []
            var offset = 4
            for (slot, field) in fields.sorted(by: { $0.value.size > $1.value.size }) {
                while offset % field.size != 0 { offset += 1 }
                layout.append((slot, field, offset))
                offset += field.size
            }
            let tableLength = offset
            align(2)
            let vtable = bytes.count
            var entries = [UInt16](repeating: 0, count: maxSlot + 1)
            for item in layout { entries[item.slot] = UInt16(item.offset) }
            bytes += le(UInt16(4 + 2 * entries.count)) + le(UInt16(tableLength)) + entries.flatMap { le($0) }
            align(8)
            let table = bytes.count
            bytes += [UInt8](repeating: 0, count: tableLength)
            let soffset = le(Int32(table - vtable))
            for i in 0..<4 { bytes[table + i] = soffset[i] }
            for item in layout {
                let raw = item.field.bytes
                for i in 0..<raw.count { bytes[table + item.offset + i] = raw[i] }
            }
            for item in layout {
                if case let .object(child) = item.field { patch(at: table + item.offset, target: write(child)) }
            }
            return table
        }
    }
}
