import CKernels

/// PAD with zeros (tensors up to rank 4).
struct PadOperation: PreparedOperation {
    let operatorIndex: Int
    let input: Int, output: Int
    let inputDims: [Int], outputDims: [Int], before: [Int]

    var inputs: [Int] { [input] }
    var outputs: [Int] { [output] }
    var summary: String { "PAD" }

    static func prepare(_ context: OperatorContext) throws -> PadOperation {
        try context.requireInputs(2...2)
        try context.requireOutputs(1)
        let input = try context.runtimeInput(0)
        let paddingsTensor = try context.input(1)
        let paddings = try context.constantInts(paddingsTensor)
        let output = try context.float32(try context.output(0))
        let rank = input.rank
        guard rank <= 4 else { throw context.unsupported("padding a rank-\(rank) tensor (at most 4)") }
        guard paddings.count == rank * 2 else {
            throw context.invalid("paddings \(paddingsTensor.label) has \(paddings.count) values for rank \(rank)")
        }
        guard paddings.allSatisfy({ $0 >= 0 && $0 <= GraphBuilder.maximumElementCount }) else {
            throw context.invalid("paddings \(paddings) must be non-negative")
        }
        var expected = [Int]()
        for d in 0..<rank {
            let before: Int = paddings[2 * d], after: Int = paddings[2 * d + 1]
            expected.append(input.shape[d] + before + after)
        }
        let beforeList: [Int] = (0..<rank).map { paddings[2 * $0] }
        try context.requireShape(output, expected)
        let lead = 4 - rank
        return PadOperation(operatorIndex: context.index, input: input.index, output: output.index,
                            inputDims: [Int](repeating: 1, count: lead) + input.shape,
                            outputDims: [Int](repeating: 1, count: lead) + expected,
                            before: [Int](repeating: 0, count: lead) + beforeList)
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let x = try memory.pointer(input), y = try memory.mutablePointer(output)
        let (inDims, outDims, before) = (inputDims, outputDims, before)
        return BoundClosure { pool in ck_pad_4d(x, inDims, y, outDims, before, 0, pool) }
    }
}
