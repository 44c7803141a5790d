import CKernels

/// LOGISTIC, TANH, RELU, RELU6 and RELU_N1_TO_1, element by element.
struct UnaryOperation: PreparedOperation {
    let operatorIndex: Int
    let name: String
    let operation: ck_unary_op
    let lower: Float, upper: Float
    let input: Int, output: Int
    let count: Int

    var inputs: [Int] { [input] }
    var outputs: [Int] { [output] }
    var summary: String { name }

    static func prepare(_ context: OperatorContext) throws -> UnaryOperation {
        try context.requireInputs(1...1)
        try context.requireOutputs(1)
        let input = try context.runtimeInput(0)
        let output = try context.float32(try context.output(0))
        try context.requireShape(output, input.shape)
        var operation = CK_UNARY_CLAMP
        var range: (Float, Float) = (-.infinity, .infinity)
        switch context.code {
        case .logistic: operation = CK_UNARY_LOGISTIC
        case .tanh: operation = CK_UNARY_TANH
        case .relu: range = (0, .infinity)
        case .relu6: range = (0, 6)
        case .reluN1To1: range = (-1, 1)
        default: throw context.invalid("not a unary operator")
        }
        return UnaryOperation(operatorIndex: context.index, name: context.name, operation: operation, lower: range.0, upper: range.1,
                              input: input.index, output: output.index, count: output.elementCount)
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        BoundUnary(operation: operation, input: try memory.pointer(input), output: try memory.mutablePointer(output),
                   count: count, lower: lower, upper: upper)
    }
}

final class BoundUnary: BoundOperation {
    let operation: ck_unary_op
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let count: Int
    let lower: Float, upper: Float

    init(operation: ck_unary_op, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int, lower: Float, upper: Float) {
        self.operation = operation
        self.input = input
        self.output = output
        self.count = count
        self.lower = lower
        self.upper = upper
    }

    override func run(pool: OpaquePointer?) { ck_unary(operation, input, output, count, lower, upper) }
}
