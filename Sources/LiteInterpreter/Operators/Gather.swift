/// GATHER along one axis with constant indices (checked when the model is loaded).
struct GatherOperation: PreparedOperation {
    let operatorIndex: Int
    let input: Int, output: Int
    let outer: Int, axisSize: Int, inner: Int
    let indices: [Int]

    var inputs: [Int] { [input] }
    var outputs: [Int] { [output] }
    var summary: String { "GATHER" }

    static func prepare(_ context: OperatorContext) throws -> GatherOperation {
        try context.requireInputs(2...2)
        try context.requireOutputs(1)
        var axisValue = 0, batchDims = 0
        if case let .gather(a, b) = context.options { axisValue = a; batchDims = b }
        guard batchDims == 0 else { throw context.unsupported("batch_dims \(batchDims)") }
        let input = try context.runtimeInput(0)
        let indicesTensor = try context.input(1)
        let indices = try context.constantInts(indicesTensor)
        let output = try context.float32(try context.output(0))
        guard let axis = Shape.axis(axisValue, rank: input.rank) else {
            throw context.invalid("axis \(axisValue) out of range for rank \(input.rank)")
        }
        let size = input.shape[axis]
        if let bad = indices.first(where: { $0 < 0 || $0 >= size }) {
            throw context.invalid("index \(bad) out of range for dimension \(axis) of size \(size)")
        }
        let expected = Array(input.shape[..<axis]) + indicesTensor.shape + Array(input.shape[(axis + 1)...])
        try context.requireShape(output, expected)
        return GatherOperation(operatorIndex: context.index, input: input.index, output: output.index,
                               outer: input.shape[..<axis].reduce(1, *), axisSize: size,
                               inner: input.shape[(axis + 1)...].reduce(1, *), indices: indices)
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let x = try memory.pointer(input), y = try memory.mutablePointer(output)
        let (outer, axisSize, inner, indices) = (outer, axisSize, inner, indices)
        return BoundClosure { _ in
            var target = y
            for o in 0..<outer {
                for index in indices {
                    target.update(from: x + (o * axisSize + index) * inner, count: inner)
                    target += inner
                }
            }
        }
    }
}
