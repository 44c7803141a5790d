import CKernels

/// CONV_2D: NHWC float32 input, OHWI weights packed at load time. 1x1 stride-1 convolutions
/// run as a GEMM over the pixels (or, when most of their weights are zero, as a sparse product
/// over the nonzero weights); others as an indirect GEMM (one pointer per output pixel
/// and kernel tap, built when an interpreter binds the operator), so no im2col copy is made.
struct Conv2DOperation: PReLUFusable, PaddingFusable, ResidualFusable {
    let operatorIndex: Int
    var input: Int
    var output: Int
    let batch: Int
    var inputHeight: Int, inputWidth: Int
    let inputChannels: Int
    var outputHeight: Int, outputWidth: Int
    let outputChannels: Int
    let kernelHeight: Int, kernelWidth: Int
    let strideH: Int, strideW: Int, dilationH: Int, dilationW: Int
    var padTop: Int, padLeft: Int
    let weights: ConvolutionWeights
    /// `inputChannels` zeros that padding taps read.
    let zeros: AlignedBuffer
    var activation: OutputActivation

    var inputs: [Int] { [input] + (activation.residual.map { [$0] } ?? []) }
    var outputs: [Int] { [output] }
    var preluChannels: Int { activation.acceptsPReLU ? outputChannels : -1 }

    var fusableOutput: Int? {
        guard activation.acceptsResidual else { return nil }
        if case .narrow = weights { return nil }
        return output
    }

    func fusing(residual: Int, lower: Float, upper: Float, output: Int) -> any PreparedOperation {
        var copy = self
        copy.activation.residual = residual
        copy.activation.sumLower = lower
        copy.activation.sumUpper = upper
        copy.output = output
        return copy
    }

    var summary: String {
        let path: String
        switch weights {
        case .narrow: path = usesDirectNarrowKernel ? "narrow, direct" : "narrow"
        case let .packed(_, half): path = (isPointwise ? "gemm" : mergesKernelRows ? "igemm, rows" : "igemm") + (half ? ", f16" : "")
        case let .sparse(_, nonzeros): path = "sparse, density \(Self.densityText(nonzeros, of: outputChannels * inputChannels))"
        }
        return "CONV_2D \(kernelHeight)x\(kernelWidth)/\(strideH) (\(path))" + (activation.residual == nil ? "" : "+ADD")
    }

    var detail: String {
        "\(inputHeight)x\(inputWidth)x\(inputChannels) -> \(outputHeight)x\(outputWidth)x\(outputChannels)"
    }

    static func densityText(_ nonzeros: Int, of count: Int) -> String {
        let percent = Int((Double(nonzeros) / Double(max(count, 1)) * 100).rounded())
        return "\(percent) %"
    }

    var multiplyAdds: Int { batch * outputHeight * outputWidth * outputChannels * kernelHeight * kernelWidth * inputChannels }

    /// Narrow convolutions over 8 channels with a square 3x3 or 5x5 kernel, stride 1 or 2, read
    /// the image directly (`ck_conv_narrow_direct`).
    var usesDirectNarrowKernel: Bool {
        guard case .narrow = weights else { return false }
        return inputChannels == 8 && kernelHeight == kernelWidth && (kernelHeight == 3 || kernelHeight == 5)
            && strideH == strideW && (strideH == 1 || strideH == 2) && dilationH == 1 && dilationW == 1
    }

    /// Convolutions over few channels (the first layer of a network, on RGB) read the taps of
    /// a kernel row as one run of kernelWidth x channels floats: the indirect GEMM then has
    /// kernelHeight taps of that length instead of kernelHeight x kernelWidth short ones. The
    /// packed weights are the same (OHWI order), and so is the arithmetic.
    var mergesKernelRows: Bool {
        guard case .packed = weights, !isPointwise else { return false }
        return inputChannels < 8 && kernelWidth > 1 && dilationW == 1 && kernelWidth * inputChannels <= 64
    }

    var isPointwise: Bool {
        kernelHeight == 1 && kernelWidth == 1 && strideH == 1 && strideW == 1 && padTop == 0 && padLeft == 0
    }

    static func prepare(_ context: OperatorContext) throws -> Conv2DOperation {
        try context.requireInputs(2...3)
        try context.requireOutputs(1)
        guard case let .convolution(options) = context.options else { throw context.invalid("missing Conv2DOptions") }
        let input = try context.float32(try context.input(0))
        let filter = try context.input(1)
        let bias = try context.optionalInput(2)
        let output = try context.float32(try context.output(0))
        try context.requireRank(input, 4)
        try context.requireRank(filter, 4)
        let (n, h, w, c) = (input.shape[0], input.shape[1], input.shape[2], input.shape[3])
        let (oc, kh, kw, ic) = (filter.shape[0], filter.shape[1], filter.shape[2], filter.shape[3])
        guard ic == c else {
            throw context.unsupported("filter \(filter.label) has \(ic) input channels for an input with \(c) (grouped convolution)")
        }
        let vertical = try ConvolutionGeometry.resolve(input: h, filter: kh, stride: options.strideH, dilation: options.dilationH,
                                                       padding: options.padding, axis: "vertical", context: context)
        let horizontal = try ConvolutionGeometry.resolve(input: w, filter: kw, stride: options.strideW, dilation: options.dilationW,
                                                         padding: options.padding, axis: "horizontal", context: context)
        try context.requireShape(output, [n, vertical.output, horizontal.output, oc])
        try Conv2DOperation.checkIndirection(pixels: output.elementCount / oc, taps: kh * kw, context: context)
        let weights = try context.constantFloats(filter)
        var biasValues: [Float]?
        if let bias {
            try context.requireShape(bias, [oc])
            biasValues = try context.constantFloats(bias)
        }
        let pointwise = kh == 1 && kw == 1 && options.strideH == 1 && options.strideW == 1 && vertical.before == 0 && horizontal.before == 0
        let packed = try ConvolutionWeights(context, outputs: oc, taps: kh * kw, inputs: ic, weights: weights, bias: biasValues,
                                            rows: output.elementCount / oc, mayBeSparse: pointwise)
        return Conv2DOperation(
            operatorIndex: context.index, input: input.index, output: output.index,
            batch: n, inputHeight: h, inputWidth: w, inputChannels: c,
            outputHeight: vertical.output, outputWidth: horizontal.output, outputChannels: oc,
            kernelHeight: kh, kernelWidth: kw, strideH: options.strideH, strideW: options.strideW,
            dilationH: options.dilationH, dilationW: options.dilationW,
            padTop: vertical.before, padLeft: horizontal.before,
            weights: packed, zeros: try context.allocate(floatCount: c),
            activation: try OutputActivation(options.activation, context: context))
    }

    /// This pointwise convolution (1x1, stride 1, no padding) without its activation, applied
    /// to `input`, an image of `height` x `width` pixels, writing `output`; nil for other
    /// convolutions. Every pixel goes through the same weights, so only the pixel count changes.
    func pointwiseWithoutActivation(on input: Int, height: Int, width: Int, output: Int) -> Conv2DOperation? {
        guard isPointwise else { return nil }
        var copy = self
        copy.activation = .none
        copy.input = input
        copy.output = output
        copy.inputHeight = height
        copy.inputWidth = width
        copy.outputHeight = height
        copy.outputWidth = width
        return copy
    }

    /// Sparse weights run only as a 1x1 convolution without padding, so they take no PAD.
    var paddedInput: Int {
        if case .sparse = weights { return -1 }
        return input
    }

    func fusing(padding input: Int, height: Int, width: Int, top: Int, left: Int) -> any PreparedOperation {
        var copy = self
        copy.input = input
        copy.inputHeight = height
        copy.inputWidth = width
        copy.padTop += top
        copy.padLeft += left
        return copy
    }

    /// Largest indirection buffer (pointers per output pixel and tap) an interpreter builds.
    static let maximumIndirectionEntries = 1 << 24

    static func checkIndirection(pixels: Int, taps: Int, context: OperatorContext) throws {
        let (entries, overflow) = pixels.multipliedReportingOverflow(by: taps)
        guard !overflow, entries <= maximumIndirectionEntries else {
            throw context.unsupported("\(pixels) output pixels x \(taps) kernel taps exceed the \(maximumIndirectionEntries)-entry indirection limit")
        }
    }

    func fusing(preluSlopes slopes: AlignedBuffer, output: Int) -> any PreparedOperation {
        var copy = self
        copy.activation.preluSlopes = slopes
        copy.output = output
        return copy
    }

    /// The GEMM of a pointwise convolution with dense weights over its pixels, and the buffers
    /// it reads (to keep alive while bound); nil for other convolutions.
    func gemmParameters(input x: UnsafePointer<Float>, output y: UnsafeMutablePointer<Float>,
                        residual: UnsafePointer<Float>?) -> (ck_gemm_params, [AlignedBuffer])? {
        guard case let .packed(packed, half) = weights, isPointwise else { return nil }
        let params = ck_gemm_params(
            m: batch * outputHeight * outputWidth, n: outputChannels, k: inputChannels, a: x, a_stride: inputChannels,
            packed: packed.floatPointer, c: y, c_stride: outputChannels,
            out_min: activation.lower, out_max: activation.upper, prelu: activation.slopesPointer,
            residual: residual, residual_stride: outputChannels, sum_min: activation.sumLower, sum_max: activation.sumUpper,
            weights_f16: half ? 1 : 0)
        return (params, [packed, activation.preluSlopes].compactMap { $0 })
    }

    /// The sparse product of a pointwise convolution with sparse weights over its pixels, with
    /// scratch for `threads` threads, and the buffers it reads (to keep alive while bound); nil
    /// for other convolutions.
    func spconvParameters(input x: UnsafePointer<Float>, output y: UnsafeMutablePointer<Float>,
                          residual: UnsafePointer<Float>?, threads: Int) -> (ck_spconv_params, [AlignedBuffer])? {
        guard case let .sparse(packed, _) = weights else { return nil }
        let slots = max(threads, 1)
        let scratch = AlignedBuffer(floatCount: slots * ck_spconv_scratch_floats(outputChannels, inputChannels))
        let params = ck_spconv_params(
            m: batch * outputHeight * outputWidth, n: outputChannels, k: inputChannels, a: x, a_stride: inputChannels,
            packed: packed.raw, c: y, c_stride: outputChannels, out_min: activation.lower, out_max: activation.upper,
            prelu: activation.slopesPointer, residual: residual, residual_stride: outputChannels,
            sum_min: activation.sumLower, sum_max: activation.sumUpper, scratch: scratch.floatPointer, scratch_slots: slots)
        return (params, [packed, scratch, activation.preluSlopes].compactMap { $0 })
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let x = try memory.pointer(input)
        let y = try memory.mutablePointer(output)
        let pixels = batch * outputHeight * outputWidth
        let post = PostActivation(activation, output: y, count: pixels * outputChannels)
        let residual = try activation.residual.map { try memory.pointer($0) }
        if let (params, keepAlive) = gemmParameters(input: x, output: y, residual: residual) {
            return BoundGEMM(params: params, post: post, keepAlive: keepAlive)
        }
        if let (params, keepAlive) = spconvParameters(input: x, output: y, residual: residual, threads: memory.threadCount) {
            return BoundClosureWith(state: keepAlive, indirection: nil) { pool in
                withUnsafePointer(to: params) { ck_spconv($0, pool) }
                post.run()
            }
        }
        if case let .narrow(raw, bias) = weights, usesDirectNarrowKernel {
            let params = ck_conv_narrow_direct_params(
                batch: batch, in_h: inputHeight, in_w: inputWidth, out_h: outputHeight, out_w: outputWidth, n: outputChannels,
                kernel: kernelHeight, stride: strideH, pad_top: padTop, pad_left: padLeft, input: x,
                weights: raw.floatPointer, bias: bias.map { UnsafePointer($0.floatPointer) }, output: y,
                out_min: activation.lower, out_max: activation.upper, prelu: activation.slopesPointer)
            return BoundClosureWith(state: [raw, bias, activation.preluSlopes].compactMap { $0 }, indirection: nil) { pool in
                _ = withUnsafePointer(to: params) { ck_conv_narrow_direct($0, pool) }
                post.run()
            }
        }
        if case let .packed(packed, half) = weights, mergesKernelRows {
            return bindMergedRows(x: x, y: y, packed: packed, half: half, residual: residual, post: post)
        }
        let taps = kernelHeight * kernelWidth
        let indirection = IndirectionBuffer(count: pixels * taps)
        var k = 0
        for b in 0..<batch {
            let image = x + b * inputHeight * inputWidth * inputChannels
            for oy in 0..<outputHeight {
                for ox in 0..<outputWidth {
                    for ky in 0..<kernelHeight {
                        let iy = oy * strideH + ky * dilationH - padTop
                        for kx in 0..<kernelWidth {
                            let ix = ox * strideW + kx * dilationW - padLeft
                            let inside = iy >= 0 && iy < inputHeight && ix >= 0 && ix < inputWidth
                            indirection.pointers[k] = inside ? image + (iy * inputWidth + ix) * inputChannels : UnsafePointer(zeros.floatPointer)
                            k += 1
                        }
                    }
                }
            }
        }
        switch weights {
        case let .packed(packed, half):
            let params = ck_igemm_params(
                m: pixels, n: outputChannels, k: inputChannels, taps: taps,
                indirection: UnsafePointer(indirection.pointers), packed: packed.floatPointer, c: y,
                c_stride: outputChannels, out_min: activation.lower, out_max: activation.upper,
                prelu: activation.slopesPointer, residual: residual, residual_stride: outputChannels,
                sum_min: activation.sumLower, sum_max: activation.sumUpper, weights_f16: half ? 1 : 0)
            return BoundIGEMM(params: params, indirection: indirection, post: post,
                              keepAlive: [packed, zeros, activation.preluSlopes].compactMap { $0 })
        case let .narrow(raw, bias):
            let params = ck_conv_narrow_params(
                m: pixels, n: outputChannels, k: inputChannels, taps: taps,
                indirection: UnsafePointer(indirection.pointers), weights: raw.floatPointer,
                bias: bias.map { UnsafePointer($0.floatPointer) }, c: y, c_stride: outputChannels,
                out_min: activation.lower, out_max: activation.upper, prelu: activation.slopesPointer)
            return BoundClosureWith(state: [raw, zeros, bias, activation.preluSlopes].compactMap { $0 }, indirection: indirection) { pool in
                withUnsafePointer(to: params) { ck_conv_narrow($0, pool) }
                post.run()
            }
        case .sparse:
            throw InterpreterError.internalInconsistency("sparse weights of operator \(operatorIndex) on a convolution that is not 1x1")
        }
    }

    /// The indirect GEMM over whole kernel rows (`mergesKernelRows`); kernel rows that stick
    /// out of the image on the left or right are assembled with zeros before each run.
    private func bindMergedRows(x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, packed: AlignedBuffer, half: Bool,
                                residual: UnsafePointer<Float>?, post: PostActivation) -> BoundOperation {
        let pixels = batch * outputHeight * outputWidth
        let run = kernelWidth * inputChannels
        let zeroRow = AlignedBuffer(floatCount: run)
        let indirection = IndirectionBuffer(count: pixels * kernelHeight)
        // First pass: which kernel rows need assembling.
        var edges: [(row: UnsafePointer<Float>, x0: Int, entry: Int)] = []
        var k = 0
        for b in 0..<batch {
            let image = x + b * inputHeight * inputWidth * inputChannels
            for oy in 0..<outputHeight {
                for ox in 0..<outputWidth {
                    let x0 = ox * strideW - padLeft
                    for ky in 0..<kernelHeight {
                        let iy = oy * strideH + ky * dilationH - padTop
                        if iy < 0 || iy >= inputHeight {
                            indirection.pointers[k] = UnsafePointer(zeroRow.floatPointer)
                        } else if x0 >= 0, x0 + kernelWidth <= inputWidth {
                            indirection.pointers[k] = image + (iy * inputWidth + x0) * inputChannels
                        } else {
                            edges.append((image + iy * inputWidth * inputChannels, x0, k))
                        }
                        k += 1
                    }
                }
            }
        }
        let patches = RowPatches(count: edges.count, floatsEach: run)
        for (i, edge) in edges.enumerated() {
            let dst = patches.storage.floatPointer + i * run
            patches.list[i] = ck_row_patch(row: edge.row, x0: edge.x0, dst: dst)
            indirection.pointers[edge.entry] = UnsafePointer(dst)
        }
        let params = ck_igemm_params(
            m: pixels, n: outputChannels, k: run, taps: kernelHeight,
            indirection: UnsafePointer(indirection.pointers), packed: packed.floatPointer, c: y,
            c_stride: outputChannels, out_min: activation.lower, out_max: activation.upper,
            prelu: activation.slopesPointer, residual: residual, residual_stride: outputChannels,
            sum_min: activation.sumLower, sum_max: activation.sumUpper, weights_f16: half ? 1 : 0)
        let (kw, channels, width) = (kernelWidth, inputChannels, inputWidth)
        return BoundIGEMM(params: params, indirection: indirection, post: post,
                          keepAlive: [packed, zeroRow, patches.storage, activation.preluSlopes].compactMap { $0 },
                          prepare: { ck_fill_row_patches(patches.list, patches.count, kw, channels, width) }, patches: patches)
    }
}

/// Convolution weights as the kernels read them: packed in GEMM panels (float32, or half
/// precision when every weight is a half-precision value and each weight is used for few output
/// pixels, so reading the weights is what takes the time), or (for layers with at most
/// `CK_NARROW_MAX_OUTPUTS` outputs) in the original OHWI layout with a separate bias, or (1x1
/// convolutions whose weights are mostly zero) as lists of their nonzero weights. The zeros are
/// those of the weights as loaded: DENSIFY'd weights (pose_detection stores 38 layers sparse at
/// density 0.25) and pruned dense ones (hand_landmark_full's last stage, density 0.36-0.56).
enum ConvolutionWeights: Sendable {
    case packed(AlignedBuffer, halfPrecision: Bool)
    case narrow(weights: AlignedBuffer, bias: AlignedBuffer?)
    case sparse(AlignedBuffer, nonzeros: Int)

    /// Weights run sparse when at most this fraction is nonzero: with AVX2 a nonzero weight costs
    /// about 1.7x a dense one (`ck_spconv` against `ck_gemm` on 7x7 and 14x14 layers: 0.6x the
    /// dense time at density 0.36, about 0.8x at 0.5). The AVX-512 GEMM (tiles of 8 rows x 32
    /// columns) gains more than the sparse kernel, whose loads grow with its multiply-adds: on
    /// 7x7 layers it runs at 112-118 G multiply-adds per second, the sparse one at the same
    /// speed near density 0.36 and slower from 0.43 on; so 0.4 there. Either way every output
    /// is the same sum (the sparse one skips products with zero).
    static var sparseMaximumDensity: Double { ck_active_isa() == CK_ISA_AVX512 ? 0.4 : 0.55 }
    /// ... and when each output has at least this many nonzero weights on average: with fewer,
    /// transposing the tiles costs more than the skipped products save (a 112x112 layer of 24
    /// inputs at density 0.25 ran 1.12x the dense time).
    static let sparseMinimumPerOutput = 8

    /// Layers computing at most this many output pixels (rows) keep half-precision weights (up to
    /// 16x16 images; at 7x7 this makes the layer about 8 % faster, at 14x14 about 3 %).
    static let halfPrecisionMaximumRows = 256

    init(_ context: OperatorContext, outputs: Int, taps: Int, inputs: Int, weights: [Float], bias: [Float]?, rows: Int,
         mayBeSparse: Bool = false) throws {
        if mayBeSparse, taps == 1, outputs > Int(CK_NARROW_MAX_OUTPUTS) {
            let nonzeros = weights.withUnsafeBufferPointer { ck_count_nonzero($0.baseAddress, $0.count) }
            if Double(nonzeros) <= Self.sparseMaximumDensity * Double(weights.count), nonzeros >= Self.sparseMinimumPerOutput * outputs {
                let bytes = weights.withUnsafeBufferPointer { ck_spconv_packed_bytes(outputs, inputs, $0.baseAddress) }
                let packed = try context.allocate(floatCount: (bytes + 3) / 4)
                weights.withUnsafeBufferPointer { wp in
                    if let bias {
                        bias.withUnsafeBufferPointer { ck_spconv_pack(outputs, inputs, wp.baseAddress, $0.baseAddress, packed.raw) }
                    } else {
                        ck_spconv_pack(outputs, inputs, wp.baseAddress, nil, packed.raw)
                    }
                }
                self = .sparse(packed, nonzeros: nonzeros)
                return
            }
        }
        if outputs <= Int(CK_NARROW_MAX_OUTPUTS) {
            let raw = try context.allocate(floatCount: weights.count)
            weights.withUnsafeBufferPointer { if let base = $0.baseAddress { raw.floatPointer.update(from: base, count: $0.count) } }
            var biasBuffer: AlignedBuffer?
            if let bias {
                let buffer = try context.allocate(floatCount: bias.count)
                bias.withUnsafeBufferPointer { if let base = $0.baseAddress { buffer.floatPointer.update(from: base, count: $0.count) } }
                biasBuffer = buffer
            }
            self = .narrow(weights: raw, bias: biasBuffer)
            return
        }
        let half = rows <= Self.halfPrecisionMaximumRows && weights.withUnsafeBufferPointer { ck_f16_exact($0.baseAddress, $0.count) == 1 }
        let packed: AlignedBuffer
        if half {
            let bytes = ck_conv_packed_bytes_f16(outputs, taps, inputs)
            packed = try context.allocate(floatCount: (bytes + 3) / 4)
            weights.withUnsafeBufferPointer { wp in
                if let bias {
                    bias.withUnsafeBufferPointer { ck_conv_pack_f16(outputs, taps, inputs, wp.baseAddress, $0.baseAddress, packed.raw) }
                } else {
                    ck_conv_pack_f16(outputs, taps, inputs, wp.baseAddress, nil, packed.raw)
                }
            }
        } else {
            packed = try context.allocate(floatCount: ck_conv_packed_size(outputs, taps, inputs))
            weights.withUnsafeBufferPointer { wp in
                if let bias {
                    bias.withUnsafeBufferPointer { ck_conv_pack(outputs, taps, inputs, wp.baseAddress, $0.baseAddress, packed.floatPointer) }
                } else {
                    ck_conv_pack(outputs, taps, inputs, wp.baseAddress, nil, packed.floatPointer)
                }
            }
        }
        self = .packed(packed, halfPrecision: half)
    }
}

/// A bound operation given as a closure, keeping buffers it points into alive.
final class BoundClosureWith: BoundOperation {
    let state: [AlignedBuffer]
    let indirection: IndirectionBuffer?
    let body: (OpaquePointer?) -> Void

    init(state: [AlignedBuffer], indirection: IndirectionBuffer?, _ body: @escaping (OpaquePointer?) -> Void) {
        self.state = state
        self.indirection = indirection
        self.body = body
    }

    override func run(pool: OpaquePointer?) { body(pool) }
}

/// One pointer per output pixel and kernel tap, owned by a bound convolution.
final class IndirectionBuffer {
    let pointers: UnsafeMutablePointer<UnsafePointer<Float>?>
    let count: Int

    init(count: Int) {
        self.count = count
        pointers = .allocate(capacity: max(count, 1))
        pointers.initialize(repeating: nil, count: max(count, 1))
    }

    deinit { pointers.deallocate() }
}

/// The part of an activation that runs as a separate pass (tanh).
struct PostActivation {
    var output: UnsafeMutablePointer<Float>?
    var count: Int

    init(_ activation: OutputActivation, output: UnsafeMutablePointer<Float>, count: Int) {
        self.output = activation.tanh ? output : nil
        self.count = count
    }

    func run() {
        if let output { ck_unary(CK_UNARY_TANH, output, output, count, 0, 0) }
    }
}

final class BoundGEMM: BoundOperation {
    let params: PinnedParameters<ck_gemm_params>
    let post: PostActivation
    let keepAlive: [AlignedBuffer]

    init(params: ck_gemm_params, post: PostActivation, keepAlive: [AlignedBuffer]) {
        self.params = PinnedParameters(params)
        self.post = post
        self.keepAlive = keepAlive
    }

    override func run(pool: OpaquePointer?) {
        ck_gemm(params.pointer, pool)
        post.run()
    }
}

final class BoundIGEMM: BoundOperation {
    let params: PinnedParameters<ck_igemm_params>
    let indirection: IndirectionBuffer
    let post: PostActivation
    let keepAlive: [AlignedBuffer]
    /// Work before the GEMM (assembling kernel rows at the image's edges), if any.
    let prepare: (() -> Void)?
    let patches: RowPatches?

    init(params: ck_igemm_params, indirection: IndirectionBuffer, post: PostActivation, keepAlive: [AlignedBuffer],
         prepare: (() -> Void)? = nil, patches: RowPatches? = nil) {
        self.params = PinnedParameters(params)
        self.indirection = indirection
        self.post = post
        self.keepAlive = keepAlive
        self.prepare = prepare
        self.patches = patches
    }

    override func run(pool: OpaquePointer?) {
        prepare?()
        ck_igemm(params.pointer, pool)
        post.run()
    }
}

/// Kernel rows assembled before each run (`ck_fill_row_patches`), owned by a bound convolution.
final class RowPatches {
    let list: UnsafeMutablePointer<ck_row_patch>
    let count: Int
    let storage: AlignedBuffer

    init(count: Int, floatsEach: Int) {
        self.count = count
        list = .allocate(capacity: max(count, 1))
        list.initialize(repeating: ck_row_patch(), count: max(count, 1))
        storage = AlignedBuffer(floatCount: max(count, 1) * floatsEach)
    }

    deinit { list.deallocate() }
}
