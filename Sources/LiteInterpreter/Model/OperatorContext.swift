/// What an operator's preparation sees: its definition, tensors and constants, and errors that
/// name the operator.
struct OperatorContext {
    let index: Int
    let code: BuiltinOperator
    let definition: OperatorDefinition
    let graph: GraphBuilder

    var name: String { code.name }
    var options: OperatorOptions { definition.options }

    func invalid(_ message: String) -> ModelError {
        .invalid("operator \(index) (\(name)): \(message)")
    }

    func unsupported(_ message: String) -> ModelError {
        .unsupported("operator \(index) (\(name)): \(message)")
    }

    func requireInputs(_ range: ClosedRange<Int>) throws {
        guard range.contains(definition.inputs.count) else {
            let expected = range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound)...\(range.upperBound)"
            throw invalid("has \(definition.inputs.count) inputs, expected \(expected)")
        }
    }

    func requireOutputs(_ count: Int) throws {
        guard definition.outputs.count == count else {
            throw invalid("has \(definition.outputs.count) outputs, expected \(count)")
        }
    }

    /// Input `i` (required).
    func input(_ i: Int) throws -> TensorInfo {
        guard i < definition.inputs.count, definition.inputs[i] >= 0 else {
            throw invalid("input \(i) is missing")
        }
        return try graph.tensor(definition.inputs[i])
    }

    /// Input `i`, or nil when omitted (index -1 or absent).
    func optionalInput(_ i: Int) throws -> TensorInfo? {
        guard i < definition.inputs.count, definition.inputs[i] >= 0 else { return nil }
        return try graph.tensor(definition.inputs[i])
    }

    func output(_ i: Int) throws -> TensorInfo {
        guard i < definition.outputs.count, definition.outputs[i] >= 0 else {
            throw invalid("output \(i) is missing")
        }
        return try graph.tensor(definition.outputs[i])
    }

    /// A float32 tensor read or written at run time.
    func float32(_ tensor: TensorInfo) throws -> TensorInfo {
        guard tensor.dataType == .float32 else {
            throw unsupported("\(tensor.label) has type \(tensor.dataType); only float32 is supported here")
        }
        return tensor
    }

    func requireShape(_ tensor: TensorInfo, _ expected: [Int]) throws {
        guard tensor.shape == expected else {
            throw invalid("\(tensor.label) has shape \(tensor.shape), expected \(expected)")
        }
    }

    func requireRank(_ tensor: TensorInfo, _ rank: Int) throws {
        guard tensor.rank == rank else {
            throw invalid("\(tensor.label) has rank \(tensor.rank) (shape \(tensor.shape)), expected rank \(rank)")
        }
    }

    func isConstant(_ tensor: TensorInfo) -> Bool { graph.isConstant(tensor.index) }

    /// The values of a constant tensor as float32 (float16 and quantised ones converted).
    func constantFloats(_ tensor: TensorInfo) throws -> [Float] {
        guard let values = try graph.constantFloats(tensor.index) else {
            throw unsupported("\(tensor.label) must be a constant")
        }
        return values
    }

    /// The values of a constant integer tensor (int32 or int64).
    func constantInts(_ tensor: TensorInfo) throws -> [Int] {
        guard let values = try graph.constantInts(tensor.index) else {
            throw unsupported("\(tensor.label) must be a constant int32 or int64 tensor")
        }
        return values
    }

    /// A float32 tensor the operator reads at run time: an activation, or a constant that is
    /// then kept by the model for the interpreters.
    func runtimeInput(_ i: Int) throws -> TensorInfo {
        let tensor = try float32OrConvertible(try input(i))
        if graph.isConstant(tensor.index) { try graph.keepRuntimeConstant(tensor.index) }
        return tensor
    }

    private func float32OrConvertible(_ tensor: TensorInfo) throws -> TensorInfo {
        if graph.isConstant(tensor.index) { return tensor } // converted to float32 when kept
        return try float32(tensor)
    }

    /// Packs model weights into a shared aligned buffer.
    func allocate(floatCount: Int) throws -> AlignedBuffer {
        try graph.allocateConstant(floatCount: floatCount, for: self)
    }
}
