import CKernels

/// RESHAPE (a copy: the element order does not change).
struct ReshapeOperation: PreparedOperation {
    let operatorIndex: Int
    let input: Int, output: Int
    let count: Int

    var inputs: [Int] { [input] }
    var outputs: [Int] { [output] }
    var summary: String { "RESHAPE" }

    static func prepare(_ context: OperatorContext) throws -> ReshapeOperation {
        try context.requireInputs(1...2)
        try context.requireOutputs(1)
        let input = try context.runtimeInput(0)
        let output = try context.float32(try context.output(0))
        guard output.elementCount == input.elementCount else {
            throw context.invalid("cannot reshape \(input.shape) to \(output.shape)")
        }
        if let shapeTensor = try context.optionalInput(1), context.isConstant(shapeTensor) {
            let requested = try context.constantInts(shapeTensor)
            let known = requested.filter { $0 != -1 }
            guard requested.count == output.rank, zip(requested, output.shape).allSatisfy({ $0 == -1 || $0 == $1 }),
                  requested.count - known.count <= 1 else {
                throw context.invalid("new shape \(requested) does not match output shape \(output.shape)")
            }
        }
        return ReshapeOperation(operatorIndex: context.index, input: input.index, output: output.index, count: output.elementCount)
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        BoundUnary(operation: CK_UNARY_COPY, input: try memory.pointer(input), output: try memory.mutablePointer(output),
                   count: count, lower: 0, upper: 0)
    }
}
