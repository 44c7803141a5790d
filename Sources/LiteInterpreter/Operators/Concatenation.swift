import CKernels

/// CONCATENATION along one axis.
struct ConcatenationOperation: PreparedOperation {
    let operatorIndex: Int
    let parts: [Int]
    let output: Int
    /// Product of the dimensions before the axis.
    let outer: Int
    /// Elements each part contributes per outer index.
    let blocks: [Int]
    let lower: Float, upper: Float

    var inputs: [Int] { parts }
    var outputs: [Int] { [output] }
    var summary: String { "CONCATENATION" }

    static func prepare(_ context: OperatorContext) throws -> ConcatenationOperation {
        try context.requireInputs(1...ModelFile.maximumOperatorArity)
        try context.requireOutputs(1)
        guard case let .concatenation(axisValue, fused) = context.options else {
            throw context.invalid("missing ConcatenationOptions")
        }
        let activation = try OutputActivation(fused, context: context)
        guard !activation.tanh else { throw context.unsupported("fused TANH on concatenation") }
        let parts = try (0..<context.definition.inputs.count).map { try context.runtimeInput($0) }
        let output = try context.float32(try context.output(0))
        guard let axis = Shape.axis(axisValue, rank: output.rank) else {
            throw context.invalid("axis \(axisValue) out of range for rank \(output.rank)")
        }
        var total = 0
        for part in parts {
            guard part.rank == output.rank,
                  (0..<part.rank).allSatisfy({ $0 == axis || part.shape[$0] == output.shape[$0] }) else {
                throw context.invalid("\(part.label) of shape \(part.shape) does not fit output shape \(output.shape) on axis \(axis)")
            }
            total += part.shape[axis]
        }
        guard total == output.shape[axis] else {
            throw context.invalid("parts add up to \(total) along axis \(axis), output has \(output.shape[axis])")
        }
        let inner = output.shape[(axis + 1)...].reduce(1, *)
        return ConcatenationOperation(operatorIndex: context.index, parts: parts.map(\.index), output: output.index,
                                      outer: output.shape[..<axis].reduce(1, *), blocks: parts.map { $0.shape[axis] * inner },
                                      lower: activation.lower, upper: activation.upper)
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let sources = try parts.map { try memory.pointer($0) }
        let y = try memory.mutablePointer(output)
        let (outer, blocks, lower, upper) = (outer, blocks, lower, upper)
        let row = blocks.reduce(0, +)
        let clamp = lower != -.infinity || upper != .infinity
        return BoundClosure { _ in
            var target = y
            for o in 0..<outer {
                for (source, block) in zip(sources, blocks) {
                    target.update(from: source + o * block, count: block)
                    target += block
                }
            }
            if clamp { ck_unary(CK_UNARY_CLAMP, y, y, outer * row, lower, upper) }
        }
    }
}
