import CKernels

/// MEAN, SUM, REDUCE_MAX and REDUCE_MIN over constant axes.
struct ReductionOperation: PreparedOperation {
    let operatorIndex: Int
    let name: String
    let operation: ck_reduce_op
    let input: Int, output: Int
    let dims: [Int]
    let mask: UInt32

    var inputs: [Int] { [input] }
    var outputs: [Int] { [output] }
    var summary: String { name }

    static func prepare(_ context: OperatorContext) throws -> ReductionOperation {
        try context.requireInputs(2...2)
        try context.requireOutputs(1)
        let operation: ck_reduce_op
        switch context.code {
        case .mean: operation = CK_REDUCE_MEAN
        case .reduceMax: operation = CK_REDUCE_MAX
        case .reduceMin: operation = CK_REDUCE_MIN
        default: throw context.invalid("not a reduction")
        }
        var keepDims = false
        if case let .reducer(value) = context.options { keepDims = value }
        let input = try context.runtimeInput(0)
        let axes = try context.constantInts(try context.input(1))
        let output = try context.float32(try context.output(0))
        var mask: UInt32 = 0
        for axis in axes {
            guard let a = Shape.axis(axis, rank: input.rank) else {
                throw context.invalid("axis \(axis) out of range for \(input.label) of rank \(input.rank)")
            }
            mask |= 1 << UInt32(a)
        }
        let kept = (0..<input.rank).compactMap { d -> Int? in
            mask & (1 << UInt32(d)) != 0 ? (keepDims ? 1 : nil) : input.shape[d]
        }
        // A full reduction without keep_dims gives a scalar, which models often store as [1].
        guard output.shape == kept || (kept.isEmpty && output.elementCount == 1) else {
            throw context.invalid("output \(output.label) has shape \(output.shape), expected \(kept)")
        }
        return ReductionOperation(operatorIndex: context.index, name: context.name, operation: operation, input: input.index,
                                  output: output.index, dims: input.shape.isEmpty ? [1] : input.shape, mask: mask)
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let x = try memory.pointer(input), y = try memory.mutablePointer(output)
        let (operation, dims, mask) = (operation, dims, mask)
        return BoundClosure { _ in ck_reduce(operation, dims.count, dims, mask, x, y) }
    }
}
