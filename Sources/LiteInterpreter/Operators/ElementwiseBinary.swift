import CKernels

/// ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM and PRELU with numpy broadcasting and the fused
/// activation (plus a fused PRELU from the next operator).
struct ElementwiseBinaryOperation: PReLUFusable {
    let operatorIndex: Int
    let name: String
    let operation: ck_binary_op
    let a: Int, b: Int
    var output: Int
    let aShape: [Int], bShape: [Int], outputShape: [Int]
    var activation: OutputActivation

    var inputs: [Int] { [a, b] }
    var summary: String { activation.preluSlopes == nil ? name : "\(name)+PRELU" }
    var outputs: [Int] { [output] }
    var detail: String { outputShape.map(String.init).joined(separator: "x") }
    var preluChannels: Int { activation.acceptsPReLU ? (outputShape.last ?? 1) : -1 }

    static func prepare(_ context: OperatorContext) throws -> ElementwiseBinaryOperation {
        try context.requireInputs(2...2)
        try context.requireOutputs(1)
        let operation: ck_binary_op
        switch context.code {
        case .add: operation = CK_BINARY_ADD
        case .sub: operation = CK_BINARY_SUB
        case .mul: operation = CK_BINARY_MUL
        case .div: operation = CK_BINARY_DIV
        case .maximum: operation = CK_BINARY_MAXIMUM
        case .minimum: operation = CK_BINARY_MINIMUM
        case .prelu: operation = CK_BINARY_PRELU
        default: throw context.invalid("not an element-wise binary operator")
        }
        var fused = FusedActivation.none
        if case let .activation(value) = context.options { fused = value }
        let a = try context.runtimeInput(0)
        let b = try context.runtimeInput(1)
        let output = try context.float32(try context.output(0))
        guard let shape = Shape.broadcast(a.shape, b.shape) else {
            throw context.invalid("shapes \(a.shape) and \(b.shape) cannot be broadcast together")
        }
        try context.requireShape(output, shape)
        return ElementwiseBinaryOperation(operatorIndex: context.index, name: context.name, operation: operation, a: a.index, b: b.index,
                                          output: output.index, aShape: a.shape, bShape: b.shape, outputShape: shape,
                                          activation: try OutputActivation(fused, context: context))
    }

    func fusing(preluSlopes slopes: AlignedBuffer, output: Int) -> any PreparedOperation {
        var copy = self
        copy.activation.preluSlopes = slopes
        copy.output = output
        return copy
    }

    /// Broadcast strides (0 on broadcast dimensions) with adjacent dimensions merged where
    /// both operands are contiguous or both broadcast across them.
    static func layout(aShape: [Int], bShape: [Int], outputShape: [Int], keepLastDimension: Bool)
        -> (dims: [Int], aStrides: [Int], bStrides: [Int]) {
        let rank = max(outputShape.count, 1)
        let out = outputShape.isEmpty ? [1] : outputShape
        func strides(_ shape: [Int]) -> [Int] {
            let padded = [Int](repeating: 1, count: rank - shape.count) + shape
            let dense = Shape.strides(padded)
            return (0..<rank).map { padded[$0] == 1 && out[$0] != 1 ? 0 : (padded[$0] == 1 ? 0 : dense[$0]) }
        }
        var dims = out, sa = strides(aShape), sb = strides(bShape)
        // Drop size-1 dimensions (they contribute nothing), keeping at least one.
        var keep = (0..<rank).filter { dims[$0] != 1 }
        if keep.isEmpty { keep = [rank - 1] }
        if keepLastDimension, keep.last != rank - 1 { keep.append(rank - 1) }
        dims = keep.map { dims[$0] }; sa = keep.map { sa[$0] }; sb = keep.map { sb[$0] }
        var i = dims.count - 1
        while i > 0 {
            let mergeable = !(keepLastDimension && i == dims.count - 1)
                && sa[i - 1] == sa[i] * dims[i] && sb[i - 1] == sb[i] * dims[i]
            if mergeable {
                dims[i - 1] *= dims[i]
                sa[i - 1] = sa[i]
                sb[i - 1] = sb[i]
                dims.remove(at: i); sa.remove(at: i); sb.remove(at: i)
            }
            i -= 1
        }
        return (dims, sa, sb)
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let layout = ElementwiseBinaryOperation.layout(aShape: aShape, bShape: bShape, outputShape: outputShape,
                                                       keepLastDimension: activation.preluSlopes != nil)
        guard layout.dims.count <= Int(CK_MAX_RANK) else {
            throw InterpreterError.internalInconsistency("operator \(operatorIndex): rank \(layout.dims.count) after merging")
        }
        var params = ck_binary_params()
        params.op = operation
        params.rank = layout.dims.count
        withUnsafeMutableBytes(of: &params.dims) { raw in
            let p = raw.bindMemory(to: Int.self)
            for (i, d) in layout.dims.enumerated() { p[i] = d }
        }
        withUnsafeMutableBytes(of: &params.a_strides) { raw in
            let p = raw.bindMemory(to: Int.self)
            for (i, s) in layout.aStrides.enumerated() { p[i] = s }
        }
        withUnsafeMutableBytes(of: &params.b_strides) { raw in
            let p = raw.bindMemory(to: Int.self)
            for (i, s) in layout.bStrides.enumerated() { p[i] = s }
        }
        params.a = try memory.pointer(a)
        params.b = try memory.pointer(b)
        let y = try memory.mutablePointer(output)
        params.out = y
        params.out_min = activation.lower
        params.out_max = activation.upper
        params.prelu = activation.slopesPointer
        return BoundBinary(params: params, post: PostActivation(activation, output: y, count: Shape.elementCount(outputShape)),
                           keepAlive: [activation.preluSlopes].compactMap { $0 })
    }
}

final class BoundBinary: BoundOperation {
    let params: PinnedParameters<ck_binary_params>
    let post: PostActivation
    let keepAlive: [AlignedBuffer]

    init(params: ck_binary_params, post: PostActivation, keepAlive: [AlignedBuffer]) {
        self.params = PinnedParameters(params)
        self.post = post
        self.keepAlive = keepAlive
    }

    override func run(pool: OpaquePointer?) {
        ck_binary(params.pointer, pool)
        post.run()
    }
}
