/// The parts of a `.tflite` flatbuffer (TFLite `schema.fbs`, identifier "TFL3") that the
/// interpreter uses, read with bounds checks. Field slots follow the schema's field order.
struct ModelFile {
    var version: Int
    var operatorCodes: [OperatorCodeDefinition]
    var subgraphCount: Int
    var tensors: [TensorDefinition]
    var operators: [OperatorDefinition]
    var inputs: [Int]
    var outputs: [Int]
    var buffers: [BufferDefinition]
    /// Named metadata entries (`TFLITE_METADATA`, `min_runtime_version`, ...).
    var metadata: [(name: String, buffer: Int)]
    /// The model's free-text description, if any.
    var description: String?

    static let identifier = "TFL3"

    /// Largest tensor rank accepted.
    static let maximumRank = 6
    /// Largest number of inputs or outputs of one operator.
    static let maximumOperatorArity = 1024
    /// Largest number of tensors, operators, buffers or operator codes (the models this
    /// interpreter is for have a few hundred); bounds the memory a hostile file can make us use.
    static let maximumEntries = 1 << 17

    /// Reads a vector of tables after checking its length against `maximumEntries`.
    private static func entries(_ table: FlatBufferTable, _ slot: Int, _ name: String,
                                childContext: (Int) -> String) throws -> [FlatBufferTable] {
        let count = try table.vectorCount(slot, name)
        guard count <= maximumEntries else {
            throw ModelError.unsupported("\(table.context): \(count) \(name) exceed the maximum of \(maximumEntries)")
        }
        return try table.tables(slot, name, childContext: childContext)
    }

    init(reader: FlatBufferReader) throws {
        // A zip local file header near the start and no TFLite identifier: a bundle, not a model.
        let start = Array(reader.bytes.prefix(64))
        let zipHeader: [UInt8] = [0x50, 0x4b, 0x03, 0x04]
        if reader.fileIdentifier != ModelFile.identifier,
           start.indices.contains(where: { start[$0...].starts(with: zipHeader) }) {
            throw ModelError.malformed("the file is a zip archive (a MediaPipe .task bundle?), not a TensorFlow Lite model; use one of the .tflite files inside it")
        }
        let root = try reader.rootTable(identifier: ModelFile.identifier, context: "model")
        version = Int(try root.scalar(0, "version", default: UInt32(0)))
        description = try root.string(3, "description")

        operatorCodes = try ModelFile.entries(root, 1, "operator_codes", childContext: { "operator code \($0)" }).map {
            try OperatorCodeDefinition(table: $0)
        }
        let buffersTables = try ModelFile.entries(root, 4, "buffers", childContext: { "buffer \($0)" })
        buffers = try buffersTables.enumerated().map { try BufferDefinition(table: $1, index: $0) }

        let subgraphTables = try ModelFile.entries(root, 2, "subgraphs", childContext: { "subgraph \($0)" })
        subgraphCount = subgraphTables.count
        guard let main = subgraphTables.first else {
            throw ModelError.invalid("the model has no subgraph")
        }
        tensors = try ModelFile.entries(main, 0, "tensors", childContext: { "tensor \($0)" }).enumerated().map {
            try TensorDefinition(table: $1, index: $0)
        }
        inputs = try (main.scalars(1, "inputs", as: Int32.self) ?? []).map(Int.init)
        outputs = try (main.scalars(2, "outputs", as: Int32.self) ?? []).map(Int.init)
        operators = try ModelFile.entries(main, 3, "operators", childContext: { "operator \($0)" }).enumerated().map {
            try OperatorDefinition(table: $1, index: $0)
        }
        metadata = try ModelFile.entries(root, 6, "metadata", childContext: { "metadata entry \($0)" }).map {
            (name: try $0.string(0, "name") ?? "", buffer: Int(try $0.scalar(1, "buffer", default: UInt32(0))))
        }
    }
}

/// `OperatorCode`: which builtin (or custom) operator an operator index refers to.
struct OperatorCodeDefinition {
    /// max(deprecated_builtin_code, builtin_code): the 8-bit field holds codes below 127, the
    /// 32-bit one was added for larger codes and is 0 in old files.
    var builtinCode: Int32
    var customCode: String?
    var version: Int32

    init(table: FlatBufferTable) throws {
        let deprecated = Int32(try table.scalar(0, "deprecated_builtin_code", default: Int8(0)))
        customCode = try table.string(1, "custom_code")
        version = try table.scalar(2, "version", default: Int32(1))
        let extended = try table.scalar(3, "builtin_code", default: Int32(0))
        builtinCode = max(deprecated, extended)
    }
}

/// `Buffer`: raw bytes stored inside the flatbuffer, or after it by offset and size.
struct BufferDefinition {
    /// Byte range within the file (empty when the buffer holds no data).
    var range: Range<Int>

    init(table: FlatBufferTable, index: Int) throws {
        let reader = table.reader
        let offset = try table.scalar(1, "offset", default: UInt64(0))
        let size = try table.scalar(2, "size", default: UInt64(0))
        if offset > 1 {
            // Stored outside the flatbuffer, relative to the start of the file.
            guard offset <= UInt64(reader.count), size <= UInt64(reader.count) - offset else {
                throw reader.fail("buffer \(index): \(size) bytes at file offset \(offset) lie outside the \(reader.count)-byte file")
            }
            range = Int(offset)..<Int(offset + size)
        } else if let (start, count) = try table.vectorRange(0, "data", elementSize: 1) {
            range = start..<(start + count)
        } else {
            range = 0..<0
        }
    }
}

/// `Tensor`.
struct TensorDefinition {
    var shape: [Int]
    var typeCode: Int
    var buffer: Int
    var name: String
    var quantization: QuantizationDefinition?
    var sparsity: SparsityDefinition?
    var isVariable: Bool

    var dataType: TensorDataType { TensorDataType(code: typeCode) }

    init(table: FlatBufferTable, index: Int) throws {
        let dims = try table.scalars(0, "shape", as: Int32.self) ?? []
        guard dims.count <= ModelFile.maximumRank else {
            throw ModelError.unsupported("tensor \(index): rank \(dims.count) exceeds the maximum of \(ModelFile.maximumRank)")
        }
        shape = dims.map(Int.init)
        typeCode = Int(try table.scalar(1, "type", default: Int8(0)))
        buffer = Int(try table.scalar(2, "buffer", default: UInt32(0)))
        name = try table.string(3, "name") ?? ""
        if let q = try table.table(4, "quantization") {
            quantization = try QuantizationDefinition(table: q)
        }
        isVariable = try table.bool(5, "is_variable")
        if let s = try table.table(6, "sparsity") {
            sparsity = try SparsityDefinition(table: s)
        }
    }
}

/// `QuantizationParameters` (affine: real = scale * (q - zero_point)).
struct QuantizationDefinition {
    var scale: [Float]
    var zeroPoint: [Int64]
    var quantizedDimension: Int

    init(table: FlatBufferTable) throws {
        scale = try table.floats(2, "scale") ?? []
        zeroPoint = try table.scalars(3, "zero_point", as: Int64.self) ?? []
        quantizedDimension = Int(try table.scalar(6, "quantized_dimension", default: Int32(0)))
    }
}

/// `SparsityParameters` with its `DimensionMetadata`.
struct SparsityDefinition {
    var traversalOrder: [Int]
    var blockMap: [Int]
    var dimensions: [DimensionMetadataDefinition]

    init(table: FlatBufferTable) throws {
        traversalOrder = (try table.scalars(0, "traversal_order", as: Int32.self) ?? []).map(Int.init)
        blockMap = (try table.scalars(1, "block_map", as: Int32.self) ?? []).map(Int.init)
        dimensions = try table.tables(2, "dim_metadata", childContext: { "\(table.context), dim_metadata \($0)" }).map {
            try DimensionMetadataDefinition(table: $0)
        }
    }
}

struct DimensionMetadataDefinition {
    enum Format { case dense, sparseCSR }
    var format: Format
    var denseSize: Int
    /// CSR row starts (array_segments) and column indices (array_indices).
    var segments: [Int]
    var indices: [Int]

    init(table: FlatBufferTable) throws {
        let code = try table.scalar(0, "format", default: Int8(0))
        switch code {
        case 0: format = .dense
        case 1: format = .sparseCSR
        default: throw ModelError.invalid("\(table.context): unknown dimension format \(code)")
        }
        denseSize = Int(try table.scalar(1, "dense_size", default: Int32(0)))
        segments = try DimensionMetadataDefinition.indexVector(table, typeSlot: 2, valueSlot: 3, name: "array_segments")
        indices = try DimensionMetadataDefinition.indexVector(table, typeSlot: 4, valueSlot: 5, name: "array_indices")
    }

    /// A `SparseIndexVector` union: Int32Vector (1), Uint16Vector (2) or Uint8Vector (3), each a
    /// table whose field 0 is the values vector.
    private static func indexVector(_ table: FlatBufferTable, typeSlot: Int, valueSlot: Int, name: String) throws -> [Int] {
        let type = try table.scalar(typeSlot, "\(name)_type", default: UInt8(0))
        guard type != 0, let vector = try table.table(valueSlot, name) else { return [] }
        switch type {
        case 1: return (try vector.scalars(0, "values", as: Int32.self) ?? []).map(Int.init)
        case 2: return (try vector.scalars(0, "values", as: UInt16.self) ?? []).map(Int.init)
        case 3: return (try vector.scalars(0, "values", as: UInt8.self) ?? []).map(Int.init)
        default: throw ModelError.invalid("\(table.context): unknown index vector type \(type) for \(name)")
        }
    }
}

/// `Operator`.
struct OperatorDefinition {
    var opcodeIndex: Int
    /// Tensor indices; -1 marks an omitted optional input.
    var inputs: [Int]
    var outputs: [Int]
    var options: OperatorOptions

    init(table: FlatBufferTable, index: Int) throws {
        opcodeIndex = Int(try table.scalar(0, "opcode_index", default: UInt32(0)))
        let ins = try table.scalars(1, "inputs", as: Int32.self) ?? []
        let outs = try table.scalars(2, "outputs", as: Int32.self) ?? []
        guard ins.count <= ModelFile.maximumOperatorArity, outs.count <= ModelFile.maximumOperatorArity else {
            throw ModelError.unsupported("operator \(index): \(ins.count) inputs and \(outs.count) outputs exceed the maximum of \(ModelFile.maximumOperatorArity)")
        }
        inputs = ins.map(Int.init)
        outputs = outs.map(Int.init)
        let optionsType = try table.scalar(3, "builtin_options_type", default: UInt8(0))
        let optionsTable = try table.table(4, "builtin_options", context: "operator \(index) options")
        options = try OperatorOptions(type: optionsType, table: optionsTable)
    }
}
