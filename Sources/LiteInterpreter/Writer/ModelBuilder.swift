/// Builds a TensorFlow Lite model file: tensors, constant buffers, operators, metadata and
/// associated files, written as TFLite's `schema.fbs` flatbuffer (identifier "TFL3") with a
/// `TFLITE_METADATA` entry and the zip archive of associated files appended, the form TFLite's
/// metadata writer gives a model. The result loads in `Model` and in TensorFlow Lite (LiteRT,
/// MediaPipe).
///
/// ```swift
/// var builder = ModelBuilder(description: "y = softmax(x W + b)")
/// let input = builder.addTensor(name: "embedding", shape: [1, 4])
/// let weights = try builder.addConstant(name: "weights", shape: [2, 4], values: [1, 0, 0, 0, 0, 1, 0, 0])
/// let bias = try builder.addConstant(name: "bias", shape: [2], values: [0, 0])
/// let logits = builder.addTensor(name: "logits", shape: [1, 2])
/// let scores = builder.addTensor(name: "scores", shape: [1, 2])
/// builder.addOperator(.fullyConnected(), inputs: [input, weights, bias], outputs: [logits])
/// builder.addOperator(.softmax(), inputs: [logits], outputs: [scores])
/// builder.inputs = [input]
/// builder.outputs = [scores]
/// let bytes = try builder.serialized()   // a .tflite file
/// ```
///
/// One subgraph; tensors without a constant buffer are activations. `serialized()` checks that
/// every index is in range and every constant holds as many bytes as its shape and type need.
public struct ModelBuilder: Sendable {
    /// A tensor of the model being built.
    public struct TensorIndex: Hashable, Sendable {
        /// The tensor's index in the subgraph.
        public let rawValue: Int
    }

    private struct TensorEntry {
        var name: String
        var shape: [Int]
        var type: TensorDataType
        /// The buffer index (0: the empty buffer of activations).
        var buffer: Int
    }

    private struct OperatorEntry {
        var operation: Operator
        var inputs: [Int]
        var outputs: [Int]
    }

    /// The model's description string.
    public var description: String?
    /// The model's metadata, written as its `TFLITE_METADATA` entry.
    public var metadata: ModelMetadata?
    /// The subgraph's inputs, in order.
    public var inputs: [TensorIndex] = []
    /// The subgraph's outputs, in order.
    public var outputs: [TensorIndex] = []

    private var tensors: [TensorEntry] = []
    /// Buffer 0 is the empty buffer every activation refers to.
    private var buffers: [[UInt8]] = [[]]
    private var operators: [OperatorEntry] = []
    private var files: [ZipArchiveWriter.Member] = []

    /// An empty model.
    public init(description: String? = nil) {
        self.description = description
    }

    /// Adds a tensor computed at run time (an input, an output or an intermediate result).
    public mutating func addTensor(name: String, shape: [Int], type: TensorDataType = .float32) -> TensorIndex {
        tensors.append(TensorEntry(name: name, shape: shape, type: type, buffer: 0))
        return TensorIndex(rawValue: tensors.count - 1)
    }

    /// Adds a constant float32 tensor (weights, biases).
    /// - Throws: `ModelError.invalid` when `values` does not have the shape's element count.
    public mutating func addConstant(name: String, shape: [Int], values: [Float]) throws -> TensorIndex {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 4)
        for value in values {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return try addConstant(name: name, shape: shape, type: .float32, bytes: bytes)
    }

    /// Adds a constant tensor of any type from its little-endian bytes.
    /// - Throws: `ModelError.invalid` when the byte count does not match the shape and type.
    public mutating func addConstant(name: String, shape: [Int], type: TensorDataType, bytes: [UInt8]) throws -> TensorIndex {
        guard let size = type.byteSize else {
            throw ModelError.invalid("constant \(name): tensors of type \(type) cannot be written as constants")
        }
        guard let count = Self.elementCount(shape), count * size == bytes.count else {
            throw ModelError.invalid("constant \(name): shape \(shape) of \(type) needs a different byte count than the \(bytes.count) given")
        }
        buffers.append(bytes)
        tensors.append(TensorEntry(name: name, shape: shape, type: type, buffer: buffers.count - 1))
        return TensorIndex(rawValue: tensors.count - 1)
    }

    /// Adds an operator; the model runs operators in the order they were added.
    public mutating func addOperator(_ operation: Operator, inputs: [TensorIndex], outputs: [TensorIndex]) {
        operators.append(OperatorEntry(operation: operation, inputs: inputs.map(\.rawValue), outputs: outputs.map(\.rawValue)))
    }

    /// Adds a file to the zip archive appended to the model, such as the `labels.txt` that the
    /// metadata names (`AssociatedFile`).
    public mutating func addAssociatedFile(name: String, contents: [UInt8]) {
        files.append(ZipArchiveWriter.Member(name: name, bytes: contents))
    }

    /// The model file's bytes.
    /// - Throws: `ModelError.invalid` for a tensor index out of range, a negative dimension,
    ///   an input or output that is a constant, no outputs, or an associated file whose name a
    ///   zip reader would refuse.
    public func serialized() throws -> [UInt8] {
        try validate()
        var builder = FlatBufferBuilder(initialCapacity: buffers.reduce(4096) { $0 + $1.count + 32 })

        // Operator codes, in order of first use.
        var codes: [Operator.Code] = []
        for entry in operators where !codes.contains(entry.operation.code) { codes.append(entry.operation.code) }
        let codeTables = codes.map { code -> FlatBufferBuilder.Offset in
            builder.startTable()
            builder.add(Int8(clamping: code.builtin), slot: 0)  // deprecated_builtin_code: 127 for larger codes
            builder.add(code.version, slot: 2)
            builder.add(code.builtin, slot: 3)
            return builder.endTable()
        }

        let tensorTables = tensors.map { tensor -> FlatBufferBuilder.Offset in
            let shape = builder.vector(tensor.shape.map { Int32(clamping: $0) })
            let name = builder.string(tensor.name)
            builder.startTable()
            builder.add(shape, slot: 0)
            builder.add(Int8(truncatingIfNeeded: tensor.type.code), slot: 1)
            builder.add(UInt32(tensor.buffer), slot: 2)
            builder.add(name, slot: 3)
            return builder.endTable()
        }
        let operatorTables = operators.map { entry -> FlatBufferBuilder.Offset in
            let inputs = builder.vector(entry.inputs.map { Int32($0) })
            let outputs = builder.vector(entry.outputs.map { Int32($0) })
            let options = entry.operation.writeOptions(&builder)
            builder.startTable()
            builder.add(UInt32(codes.firstIndex(of: entry.operation.code) ?? 0), slot: 0)
            builder.add(inputs, slot: 1)
            builder.add(outputs, slot: 2)
            if let options {
                builder.add(options.type, slot: 3)
                builder.add(options.table, slot: 4)
            }
            return builder.endTable()
        }
        let tensorVector = builder.vector(tensorTables)
        let inputVector = builder.vector(inputs.map { Int32($0.rawValue) })
        let outputVector = builder.vector(outputs.map { Int32($0.rawValue) })
        let operatorVector = builder.vector(operatorTables)
        let subgraphName = builder.string("main")
        builder.startTable()
        builder.add(tensorVector, slot: 0)
        builder.add(inputVector, slot: 1)
        builder.add(outputVector, slot: 2)
        builder.add(operatorVector, slot: 3)
        builder.add(subgraphName, slot: 4)
        let subgraph = builder.endTable()
        let subgraphs = builder.vector([subgraph])

        var allBuffers = buffers
        var metadataEntries: [FlatBufferBuilder.Offset] = []
        if let metadata {
            allBuffers.append(MetadataWriter.serialize(metadata))
            let name = builder.string(MetadataParser.entryName)
            builder.startTable()
            builder.add(name, slot: 0)
            builder.add(UInt32(allBuffers.count - 1), slot: 1)
            metadataEntries.append(builder.endTable())
        }
        let bufferTables = allBuffers.map { bytes -> FlatBufferBuilder.Offset in
            // TFLite's schema asks for buffer data aligned to 16 bytes.
            let data = bytes.isEmpty ? nil : builder.bytes(bytes, alignment: 16)
            builder.startTable()
            if let data { builder.add(data, slot: 0) }
            return builder.endTable()
        }
        let bufferVector = builder.vector(bufferTables)
        let codeVector = builder.vector(codeTables)
        let metadataVector = metadataEntries.isEmpty ? nil : builder.vector(metadataEntries)
        let descriptionString = description.map { builder.string($0) }

        builder.startTable()
        builder.add(UInt32(3), slot: 0)  // schema version
        builder.add(codeVector, slot: 1)
        builder.add(subgraphs, slot: 2)
        if let descriptionString { builder.add(descriptionString, slot: 3) }
        builder.add(bufferVector, slot: 4)
        if let metadataVector { builder.add(metadataVector, slot: 6) }
        let root = builder.endTable()
        var bytes = builder.finish(root: root, identifier: ModelFile.identifier)
        if !files.isEmpty {
            do {
                bytes += try ZipArchiveWriter.archive(files, startOffset: bytes.count)
            } catch {
                throw ModelError.invalid("associated files: \(error)")
            }
        }
        return bytes
    }

    private func validate() throws {
        func check(_ indices: [Int], _ what: String) throws {
            for index in indices where !tensors.indices.contains(index) {
                throw ModelError.invalid("\(what) refers to tensor \(index), but the model has \(tensors.count) tensors")
            }
        }
        for (index, tensor) in tensors.enumerated() where Self.elementCount(tensor.shape) == nil {
            throw ModelError.invalid("tensor \(index) (\(tensor.name)): shape \(tensor.shape) has a negative or too large dimension")
        }
        guard !outputs.isEmpty else { throw ModelError.invalid("the model has no outputs") }
        try check(inputs.map(\.rawValue), "an input")
        try check(outputs.map(\.rawValue), "an output")
        for index in inputs.map(\.rawValue) + outputs.map(\.rawValue) where tensors[index].buffer != 0 {
            throw ModelError.invalid("tensor \(index) (\(tensors[index].name)) is a constant and cannot be an input or output")
        }
        for (index, entry) in operators.enumerated() {
            try check(entry.inputs, "operator \(index) (\(entry.operation.name))")
            try check(entry.outputs, "operator \(index) (\(entry.operation.name))")
        }
    }

    /// The element count of `shape`, nil for a negative dimension or an overflow.
    private static func elementCount(_ shape: [Int]) -> Int? {
        var count = 1
        for dimension in shape {
            guard dimension >= 0, dimension <= Int(Int32.max) else { return nil }
            let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
            guard !overflow, product <= Int(Int32.max) else { return nil }
            count = product
        }
        return count
    }
}
