import CKernels

/// UNPACK: splits a tensor along an axis into tensors of one rank less.
struct UnpackOperation: PreparedOperation {
    let operatorIndex: Int
    let input: Int
    let parts: [Int]
    let outer: Int, count: Int, inner: Int

    var inputs: [Int] { [input] }
    var outputs: [Int] { parts }
    var summary: String { "UNPACK" }

    static func prepare(_ context: OperatorContext) throws -> UnpackOperation {
        try context.requireInputs(1...1)
        guard case let .unpack(number, axisValue) = context.options else { throw context.invalid("missing UnpackOptions") }
        let input = try context.runtimeInput(0)
        guard let axis = Shape.axis(axisValue, rank: input.rank) else {
            throw context.invalid("axis \(axisValue) out of range for rank \(input.rank)")
        }
        let count = input.shape[axis]
        guard number == count || number == 0 else {
            throw context.invalid("num \(number) does not match dimension \(axis) of size \(count)")
        }
        try context.requireOutputs(count)
        var shape = input.shape
        shape.remove(at: axis)
        let parts = try (0..<count).map { i -> TensorInfo in
            let part = try context.float32(try context.output(i))
            try context.requireShape(part, shape)
            return part
        }
        return UnpackOperation(operatorIndex: context.index, input: input.index, parts: parts.map(\.index),
                               outer: input.shape[..<axis].reduce(1, *), count: count,
                               inner: input.shape[(axis + 1)...].reduce(1, *))
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let x = try memory.pointer(input)
        let targets = try parts.map { try memory.mutablePointer($0) }
        // part i = x[o][i][:] for every outer index o.
        let dims = [outer, inner]
        let strides = [count * inner, 1]
        let inner = inner
        return BoundClosure { pool in
            for (i, target) in targets.enumerated() {
                ck_copy_strided(2, dims, x + i * inner, strides, target, pool)
            }
        }
    }
}
