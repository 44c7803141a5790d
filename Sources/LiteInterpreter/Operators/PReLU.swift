import CKernels

/// PRELU: x >= 0 ? x : x * alpha. When alpha is a constant with one slope per channel (the
/// last dimension) the preparation fuses it into the operator that writes x.
struct PReLUOperation: PreparedOperation {
    let binary: ElementwiseBinaryOperation
    /// The slopes, when alpha is a per-channel constant.
    let channelSlopes: AlignedBuffer?

    var operatorIndex: Int { binary.operatorIndex }
    var inputs: [Int] { binary.inputs }
    var outputs: [Int] { binary.outputs }
    var summary: String { "PRELU" }
    var input: Int { binary.a }
    var output: Int { binary.output }

    static func prepare(_ context: OperatorContext) throws -> PReLUOperation {
        let binary = try ElementwiseBinaryOperation.prepare(context)
        let x = try context.input(0), alpha = try context.input(1)
        var slopes: AlignedBuffer?
        let channels = x.shape.last ?? 1
        if context.isConstant(alpha), binary.outputShape == x.shape, alpha.elementCount == channels,
           alpha.shape.dropLast().allSatisfy({ $0 == 1 }), alpha.rank <= x.rank {
            slopes = context.graph.runtimeConstants[alpha.index]
        }
        return PReLUOperation(binary: binary, channelSlopes: slopes)
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation { try binary.bind(memory) }
}
