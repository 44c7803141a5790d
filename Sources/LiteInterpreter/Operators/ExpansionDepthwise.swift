import CKernels

/// A pointwise convolution with dense weights (an inverted residual block's expansion) and the
/// depthwise convolution that alone reads its output, run together band by band
/// (`ck_expand_dwconv`): the expanded image is never stored whole, so it neither leaves the
/// caches nor moves between cores. The results are those of the two operators one after the
/// other, bit for bit.
struct ExpansionDepthwiseOperation: PreparedOperation {
    let expansion: Conv2DOperation
    let depthwise: DepthwiseConv2DOperation

    /// Expanded images of at least this many bytes are fused. On a 2-vCPU Intel Xeon with 2 MiB
    /// of L2 per core, 1.2-1.8 MB ones (56x56x96 and 56x56x144) ran no faster in bands at one
    /// thread and slower at two (docs/benchmarks.md).
    static let minimumExpandedBytes = 1 << 21

    /// The fused pair, or nil when `expansion` and `depthwise` cannot run together: the
    /// expansion must be a dense pointwise convolution of one image at least 2 pixels wide
    /// whose only reader is the depthwise layer, neither with a separate activation pass (tanh)
    /// nor a residual, and the expanded image at least `minimumExpandedBytes`.
    init?(expansion: Conv2DOperation, depthwise: DepthwiseConv2DOperation, readersOfExpansion: Int) {
        guard case .packed = expansion.weights, expansion.isPointwise, expansion.batch == 1, expansion.inputWidth >= 2,
              readersOfExpansion == 1, depthwise.input == expansion.output, depthwise.parameters.batch == 1,
              expansion.activation.residual == nil, !expansion.activation.tanh, !depthwise.activation.tanh,
              depthwise.parameters.in_h == expansion.outputHeight, depthwise.parameters.in_w == expansion.outputWidth,
              depthwise.parameters.channels == expansion.outputChannels,
              expansion.outputHeight * expansion.outputWidth * expansion.outputChannels * 4 >= Self.minimumExpandedBytes
        else { return nil }
        self.expansion = expansion
        self.depthwise = depthwise
    }

    var operatorIndex: Int { depthwise.operatorIndex }
    var inputs: [Int] { expansion.inputs }
    var outputs: [Int] { depthwise.outputs }
    var summary: String {
        let d = depthwise.parameters
        return "CONV_2D 1x1 + DEPTHWISE_CONV_2D \(d.kernel_h)x\(d.kernel_w)/\(d.stride_h) (in bands)"
    }
    var detail: String {
        let d = depthwise.parameters
        return "\(expansion.inputHeight)x\(expansion.inputWidth)x\(expansion.inputChannels) -> \(d.channels) -> \(d.out_h)x\(d.out_w)x\(d.channels)"
    }
    var multiplyAdds: Int { expansion.multiplyAdds + depthwise.multiplyAdds }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let x = try memory.pointer(expansion.input)
        let y = try memory.mutablePointer(depthwise.output)
        // The GEMM's output pointer is not used: each band writes its thread's window.
        guard let (expand, expansionBuffers) = expansion.gemmParameters(input: x, output: y, residual: nil) else {
            throw InterpreterError.internalInconsistency("operator \(expansion.operatorIndex) is no longer a dense pointwise convolution")
        }
        let (depthwiseParameters, depthwiseBuffers) = depthwise.boundParameters(input: nil, output: y)
        let slots = max(memory.threadCount, 1)
        var probe = depthwiseParameters
        let scratch = AlignedBuffer(floatCount: slots * ck_expand_dwconv_scratch_floats(&probe, 0))
        let params = ck_expand_dwconv_params(expand: expand, depthwise: depthwiseParameters, band_rows: 0,
                                             scratch: scratch.floatPointer, scratch_slots: slots)
        return BoundExpansionDepthwise(params: params, keepAlive: expansionBuffers + depthwiseBuffers + [scratch])
    }
}

extension ck_expand_dwconv_params: @retroactive @unchecked Sendable {}

final class BoundExpansionDepthwise: BoundOperation {
    let params: PinnedParameters<ck_expand_dwconv_params>
    let keepAlive: [AlignedBuffer]

    init(params: ck_expand_dwconv_params, keepAlive: [AlignedBuffer]) {
        self.params = PinnedParameters(params)
        self.keepAlive = keepAlive
    }

    override func run(pool: OpaquePointer?) {
        ck_expand_dwconv(params.pointer, pool)
    }
}
