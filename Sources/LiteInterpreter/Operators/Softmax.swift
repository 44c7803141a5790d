import CKernels

/// SOFTMAX over the last dimension.
struct SoftmaxOperation: PreparedOperation {
    let operatorIndex: Int
    let input: Int, output: Int
    let rows: Int, width: Int
    let beta: Float

    var inputs: [Int] { [input] }
    var outputs: [Int] { [output] }
    var summary: String { "SOFTMAX" }

    static func prepare(_ context: OperatorContext) throws -> SoftmaxOperation {
        try context.requireInputs(1...1)
        try context.requireOutputs(1)
        guard case let .softmax(beta) = context.options else { throw context.invalid("missing SoftmaxOptions") }
        let input = try context.runtimeInput(0)
        let output = try context.float32(try context.output(0))
        try context.requireShape(output, input.shape)
        let width = input.shape.last ?? 1
        return SoftmaxOperation(operatorIndex: context.index, input: input.index, output: output.index,
                                rows: input.elementCount / width, width: width, beta: beta)
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let x = try memory.pointer(input), y = try memory.mutablePointer(output)
        let (rows, width, beta) = (rows, width, beta)
        return BoundClosure { _ in ck_softmax(x, y, rows, width, beta) }
    }
}

/// A bound operation given as a closure (for operators with little state).
final class BoundClosure: BoundOperation {
    let body: (OpaquePointer?) -> Void

    init(_ body: @escaping (OpaquePointer?) -> Void) { self.body = body }

    override func run(pool: OpaquePointer?) { body(pool) }
}
