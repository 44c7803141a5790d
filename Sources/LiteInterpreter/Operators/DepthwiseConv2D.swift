import CKernels

/// DEPTHWISE_CONV_2D with depth multiplier 1 (a direct kernel over tiles of 16 channels with
/// bias and activation fused), or any multiplier when the input has one channel (then it is
/// an ordinary convolution and runs as one).
enum DepthwiseConv2D {
    static func prepare(_ context: OperatorContext) throws -> any PreparedOperation {
        try context.requireInputs(2...3)
        try context.requireOutputs(1)
        guard case let .convolution(options) = context.options else { throw context.invalid("missing DepthwiseConv2DOptions") }
        let input = try context.float32(try context.input(0))
        let filter = try context.input(1)
        let bias = try context.optionalInput(2)
        let output = try context.float32(try context.output(0))
        try context.requireRank(input, 4)
        try context.requireRank(filter, 4)
        let (n, h, w, c) = (input.shape[0], input.shape[1], input.shape[2], input.shape[3])
        let (one, kh, kw, oc) = (filter.shape[0], filter.shape[1], filter.shape[2], filter.shape[3])
        guard one == 1 else { throw context.invalid("filter \(filter.label) has shape \(filter.shape), expected [1, h, w, channels]") }
        let multiplier = oc / c
        guard multiplier >= 1, multiplier * c == oc else {
            throw context.invalid("filter \(filter.label) has \(oc) channels, not a multiple of the \(c) input channels")
        }
        guard options.depthMultiplier == multiplier || options.depthMultiplier == 0 else {
            throw context.invalid("depth multiplier \(options.depthMultiplier) does not match the filter (\(multiplier))")
        }
        let vertical = try ConvolutionGeometry.resolve(input: h, filter: kh, stride: options.strideH, dilation: options.dilationH,
                                                       padding: options.padding, axis: "vertical", context: context)
        let horizontal = try ConvolutionGeometry.resolve(input: w, filter: kw, stride: options.strideW, dilation: options.dilationW,
                                                         padding: options.padding, axis: "horizontal", context: context)
        try context.requireShape(output, [n, vertical.output, horizontal.output, oc])
        let weights = try context.constantFloats(filter)
        var biasValues: [Float]?
        if let bias {
            try context.requireShape(bias, [oc])
            biasValues = try context.constantFloats(bias)
        }
        let taps = kh * kw
        let activation = try OutputActivation(options.activation, context: context)

        if multiplier != 1 {
            guard c == 1 else {
                throw context.unsupported("depth multiplier \(multiplier) with \(c) input channels")
            }
            try Conv2DOperation.checkIndirection(pixels: output.elementCount / oc, taps: taps, context: context)
            // One input channel: output channel o uses weights[ky][kx][o], i.e. OHWI with I = 1.
            var ohwi = [Float](repeating: 0, count: oc * taps)
            for t in 0..<taps { for o in 0..<oc { ohwi[o * taps + t] = weights[t * oc + o] } }
            let packed = try ConvolutionWeights(context, outputs: oc, taps: taps, inputs: 1, weights: ohwi, bias: biasValues,
                                                rows: output.elementCount / oc)
            return Conv2DOperation(
                operatorIndex: context.index, input: input.index, output: output.index,
                batch: n, inputHeight: h, inputWidth: w, inputChannels: 1,
                outputHeight: vertical.output, outputWidth: horizontal.output, outputChannels: oc,
                kernelHeight: kh, kernelWidth: kw, strideH: options.strideH, strideW: options.strideW,
                dilationH: options.dilationH, dilationW: options.dilationW,
                padTop: vertical.before, padLeft: horizontal.before,
                weights: packed, zeros: try context.allocate(floatCount: 1), activation: activation)
        }

        guard taps <= Int(CK_DWCONV_MAX_TAPS) else {
            throw context.unsupported("a \(kh)x\(kw) depthwise kernel (at most \(CK_DWCONV_MAX_TAPS) taps)")
        }
        let packed = try context.allocate(floatCount: ck_dwconv_packed_size(c, taps))
        weights.withUnsafeBufferPointer { wp in
            if let biasValues {
                biasValues.withUnsafeBufferPointer { ck_dwconv_pack(c, taps, wp.baseAddress, $0.baseAddress, packed.floatPointer) }
            } else {
                ck_dwconv_pack(c, taps, wp.baseAddress, nil, packed.floatPointer)
            }
        }
        return DepthwiseConv2DOperation(
            operatorIndex: context.index, input: input.index, output: output.index,
            parameters: ck_dwconv_params(
                batch: n, in_h: h, in_w: w, channels: c, out_h: vertical.output, out_w: horizontal.output,
                kernel_h: kh, kernel_w: kw, stride_h: options.strideH, stride_w: options.strideW,
                dilation_h: options.dilationH, dilation_w: options.dilationW,
                pad_top: vertical.before, pad_left: horizontal.before,
                input: nil, packed: nil, zero: nil, output: nil, out_min: 0, out_max: 0, prelu: nil, line_spans: -1),
            packed: packed, zeros: try context.allocate(floatCount: c), activation: activation)
    }
}

struct DepthwiseConv2DOperation: PReLUFusable, PaddingFusable {
    let operatorIndex: Int
    var input: Int
    var output: Int
    /// Geometry (pointers are filled in when bound).
    var parameters: ck_dwconv_params
    let packed: AlignedBuffer
    let zeros: AlignedBuffer
    var activation: OutputActivation

    var inputs: [Int] { [input] }
    var outputs: [Int] { [output] }
    var preluChannels: Int { activation.acceptsPReLU ? parameters.channels : -1 }
    var summary: String { "DEPTHWISE_CONV_2D \(parameters.kernel_h)x\(parameters.kernel_w)/\(parameters.stride_h)" }
    var detail: String {
        let p = parameters
        return "\(p.in_h)x\(p.in_w)x\(p.channels) -> \(p.out_h)x\(p.out_w)x\(p.channels)"
    }
    var multiplyAdds: Int {
        let p = parameters
        return p.batch * p.out_h * p.out_w * p.channels * p.kernel_h * p.kernel_w
    }

    func fusing(preluSlopes slopes: AlignedBuffer, output: Int) -> any PreparedOperation {
        var copy = self
        copy.activation.preluSlopes = slopes
        copy.output = output
        return copy
    }

    var paddedInput: Int { input }

    func fusing(padding input: Int, height: Int, width: Int, top: Int, left: Int) -> any PreparedOperation {
        var copy = self
        copy.input = input
        copy.parameters.in_h = height
        copy.parameters.in_w = width
        copy.parameters.pad_top += top
        copy.parameters.pad_left += left
        return copy
    }

    /// The kernel's parameters reading `x` and writing `y`, and the buffers they point to (to
    /// keep alive while bound).
    func boundParameters(input x: UnsafePointer<Float>?, output y: UnsafeMutablePointer<Float>) -> (ck_dwconv_params, [AlignedBuffer]) {
        var params = parameters
        params.input = x
        params.output = y
        params.packed = UnsafePointer(packed.floatPointer)
        params.zero = UnsafePointer(zeros.floatPointer)
        params.out_min = activation.lower
        params.out_max = activation.upper
        params.prelu = activation.slopesPointer
        params.line_spans = ck_dwconv_line_spans(&params)
        return (params, [packed, zeros, activation.preluSlopes].compactMap { $0 })
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let y = try memory.mutablePointer(output)
        let (params, keepAlive) = boundParameters(input: try memory.pointer(input), output: y)
        let count = params.batch * params.out_h * params.out_w * params.channels
        return BoundDepthwise(params: params, post: PostActivation(activation, output: y, count: count), keepAlive: keepAlive)
    }
}

extension ck_dwconv_params: @retroactive @unchecked Sendable {}

final class BoundDepthwise: BoundOperation {
    let params: PinnedParameters<ck_dwconv_params>
    let post: PostActivation
    let keepAlive: [AlignedBuffer]

    init(params: ck_dwconv_params, post: PostActivation, keepAlive: [AlignedBuffer]) {
        self.params = PinnedParameters(params)
        self.post = post
        self.keepAlive = keepAlive
    }

    override func run(pool: OpaquePointer?) {
        ck_dwconv(params.pointer, pool)
        post.run()
    }
}
