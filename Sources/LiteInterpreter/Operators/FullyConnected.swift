import CKernels

/// FULLY_CONNECTED: [M, K] x [N, K]^T + bias with weights packed at load time.
struct FullyConnectedOperation: PReLUFusable, ResidualFusable {
    let operatorIndex: Int
    let input: Int
    var output: Int
    let rows: Int, inputSize: Int, outputSize: Int
    let packed: AlignedBuffer
    /// `packed` holds half-precision panels.
    let halfPrecision: Bool
    var activation: OutputActivation

    var inputs: [Int] { [input] + (activation.residual.map { [$0] } ?? []) }
    var outputs: [Int] { [output] }
    var summary: String { activation.residual == nil ? "FULLY_CONNECTED" : "FULLY_CONNECTED+ADD" }
    var fusableOutput: Int? { activation.acceptsResidual ? output : nil }

    func fusing(residual: Int, lower: Float, upper: Float, output: Int) -> any PreparedOperation {
        var copy = self
        copy.activation.residual = residual
        copy.activation.sumLower = lower
        copy.activation.sumUpper = upper
        copy.output = output
        return copy
    }
    var detail: String { "\(rows)x\(inputSize) -> \(rows)x\(outputSize)" }
    var multiplyAdds: Int { rows * inputSize * outputSize }
    var preluChannels: Int { activation.acceptsPReLU ? outputSize : -1 }

    static func prepare(_ context: OperatorContext) throws -> FullyConnectedOperation {
        try context.requireInputs(2...3)
        try context.requireOutputs(1)
        guard case let .fullyConnected(fused, format, keepNumDims) = context.options else {
            throw context.invalid("missing FullyConnectedOptions")
        }
        guard format == 0 else { throw context.unsupported("weights format \(format)") }
        let input = try context.float32(try context.input(0))
        let filter = try context.input(1)
        let bias = try context.optionalInput(2)
        let output = try context.float32(try context.output(0))
        try context.requireRank(filter, 2)
        let (n, k) = (filter.shape[0], filter.shape[1])
        guard input.elementCount % k == 0 else {
            throw context.invalid("input \(input.label) of shape \(input.shape) is not a whole number of rows of \(k)")
        }
        let m = input.elementCount / k
        let expected = keepNumDims ? Array(input.shape.dropLast()) + [n] : [m, n]
        guard output.shape == expected || (output.elementCount == m * n && output.shape.last == n) else {
            throw context.invalid("output \(output.label) has shape \(output.shape), expected \(expected)")
        }
        let weights = try context.constantFloats(filter)
        var biasValues: [Float]?
        if let bias {
            try context.requireShape(bias, [n])
            biasValues = try context.constantFloats(bias)
        }
        // Few rows: each weight is used a few times, so reading the weights matters and
        // half-precision panels (when the weights are half-precision values) halve that.
        let half = m <= ConvolutionWeights.halfPrecisionMaximumRows
            && weights.withUnsafeBufferPointer { ck_f16_exact($0.baseAddress, $0.count) == 1 }
        let packed: AlignedBuffer
        if half {
            packed = try context.allocate(floatCount: (ck_conv_packed_bytes_f16(n, 1, k) + 3) / 4)
            weights.withUnsafeBufferPointer { wp in
                if let biasValues {
                    biasValues.withUnsafeBufferPointer { ck_conv_pack_f16(n, 1, k, wp.baseAddress, $0.baseAddress, packed.raw) }
                } else {
                    ck_conv_pack_f16(n, 1, k, wp.baseAddress, nil, packed.raw)
                }
            }
        } else {
            packed = try context.allocate(floatCount: ck_conv_packed_size(n, 1, k))
            weights.withUnsafeBufferPointer { wp in
                if let biasValues {
                    biasValues.withUnsafeBufferPointer { ck_conv_pack(n, 1, k, wp.baseAddress, $0.baseAddress, packed.floatPointer) }
                } else {
                    ck_conv_pack(n, 1, k, wp.baseAddress, nil, packed.floatPointer)
                }
            }
        }
        return FullyConnectedOperation(operatorIndex: context.index, input: input.index, output: output.index,
                                       rows: m, inputSize: k, outputSize: n, packed: packed, halfPrecision: half,
                                       activation: try OutputActivation(fused, context: context))
    }

    func fusing(preluSlopes slopes: AlignedBuffer, output: Int) -> any PreparedOperation {
        var copy = self
        copy.activation.preluSlopes = slopes
        copy.output = output
        return copy
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let y = try memory.mutablePointer(output)
        let residual = try activation.residual.map { try memory.pointer($0) }
        let params = ck_gemm_params(
            m: rows, n: outputSize, k: inputSize, a: try memory.pointer(input), a_stride: inputSize,
            packed: packed.floatPointer, c: y, c_stride: outputSize,
            out_min: activation.lower, out_max: activation.upper, prelu: activation.slopesPointer,
            residual: residual, residual_stride: outputSize, sum_min: activation.sumLower, sum_max: activation.sumUpper,
            weights_f16: halfPrecision ? 1 : 0)
        return BoundGEMM(params: params, post: PostActivation(activation, output: y, count: rows * outputSize),
                         keepAlive: [packed, activation.preluSlopes].compactMap { $0 })
    }
}
