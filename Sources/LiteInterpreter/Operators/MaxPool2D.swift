import CKernels

/// MAX_POOL_2D over NHWC (taps in the padding are ignored).
struct MaxPool2DOperation: PreparedOperation {
    let operatorIndex: Int
    let input: Int, output: Int
    let parameters: ck_pool_params

    var inputs: [Int] { [input] }
    var outputs: [Int] { [output] }
    var summary: String { "MAX_POOL_2D" }

    static func prepare(_ context: OperatorContext) throws -> MaxPool2DOperation {
        try context.requireInputs(1...1)
        try context.requireOutputs(1)
        guard case let .pool(options) = context.options else { throw context.invalid("missing Pool2DOptions") }
        let input = try context.float32(try context.input(0))
        let output = try context.float32(try context.output(0))
        try context.requireRank(input, 4)
        let (n, h, w, c) = (input.shape[0], input.shape[1], input.shape[2], input.shape[3])
        let vertical = try ConvolutionGeometry.resolve(input: h, filter: options.filterH, stride: options.strideH, dilation: 1,
                                                       padding: options.padding, axis: "vertical", context: context)
        let horizontal = try ConvolutionGeometry.resolve(input: w, filter: options.filterW, stride: options.strideW, dilation: 1,
                                                         padding: options.padding, axis: "horizontal", context: context)
        try context.requireShape(output, [n, vertical.output, horizontal.output, c])
        let activation = try OutputActivation(options.activation, context: context)
        guard !activation.tanh else { throw context.unsupported("fused TANH on pooling") }
        return MaxPool2DOperation(
            operatorIndex: context.index, input: input.index, output: output.index,
            parameters: ck_pool_params(batch: n, in_h: h, in_w: w, channels: c, out_h: vertical.output, out_w: horizontal.output,
                                       filter_h: options.filterH, filter_w: options.filterW,
                                       stride_h: options.strideH, stride_w: options.strideW,
                                       pad_top: vertical.before, pad_left: horizontal.before,
                                       input: nil, output: nil, out_min: activation.lower, out_max: activation.upper))
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        var params = parameters
        params.input = try memory.pointer(input)
        params.output = try memory.mutablePointer(output)
        let pinned = PinnedParameters(params)
        return BoundClosure { pool in ck_maxpool(pinned.pointer, pool) }
    }
}

extension ck_pool_params: @retroactive @unchecked Sendable {}
