import CKernels

/// A pointwise convolution (an inverted residual block's expansion) and the depthwise
/// convolution that alone reads its output, run together (`ck_expand_dwconv`), so that the
/// expanded image neither leaves the caches nor moves between cores: in bands, it is never
/// stored whole (nor has a place in the arena); in channel groups, each thread writes and reads
/// its own channels of it, in memory of its own. The results are those of the two operators
/// one after the other, bit for bit.
struct ExpansionDepthwiseOperation: PreparedOperation {
    let expansion: Conv2DOperation
    let depthwise: DepthwiseConv2DOperation
    let split: Split

    /// How the threads share the pair.
    enum Split {
        /// Bands of output rows, each computed from a window of expanded rows: large images.
        case bands
        /// Groups of channels, each expanded over the whole image and then convolved: images of
        /// so few rows that the depthwise layer would split its channels between the threads.
        case channelGroups
    }

    /// Expanded images of at least this many bytes run in bands. On a 2-vCPU Intel Xeon with 2
    /// MiB of L2 per core, 1.2-1.8 MB ones (56x56x96 and 56x56x144) ran no faster in bands at one
    /// thread and slower at two (docs/benchmarks.md).
    static let minimumExpandedBytes = 1 << 21

    /// Images of at most this many rows run in groups of channels: those on which `ck_dwconv`
    /// splits channels at two threads (7x7 and 8x8).
    static let maximumChannelGroupRows = 8

    /// The fused pair, or nil when `expansion` and `depthwise` cannot run together: the
    /// expansion must be a pointwise convolution of one image at least 2 pixels wide whose only
    /// reader is the depthwise layer, neither with a separate activation pass (tanh) nor a
    /// residual, and the expanded image at least `minimumExpandedBytes` (bands) or of at most
    /// `maximumChannelGroupRows` rows (channel groups). Bands take dense weights; channel groups
    /// dense ones, or sparse ones over at most `CK_SPCONV_TILE` pixels (one tile of the sparse
    /// kernel, whose threads then share the input as channel groups need).
    init?(expansion: Conv2DOperation, depthwise: DepthwiseConv2DOperation, readersOfExpansion: Int) {
        guard expansion.isPointwise, expansion.batch == 1, expansion.inputWidth >= 2,
              readersOfExpansion == 1, depthwise.input == expansion.output, depthwise.parameters.batch == 1,
              expansion.activation.residual == nil, !expansion.activation.tanh, !depthwise.activation.tanh,
              depthwise.parameters.in_h == expansion.outputHeight, depthwise.parameters.in_w == expansion.outputWidth,
              depthwise.parameters.channels == expansion.outputChannels
        else { return nil }
        let pixels = expansion.outputHeight * expansion.outputWidth
        switch expansion.weights {
        case .packed where pixels * expansion.outputChannels * 4 >= Self.minimumExpandedBytes: split = .bands
        case .packed where expansion.outputHeight <= Self.maximumChannelGroupRows: split = .channelGroups
        case .sparse where expansion.outputHeight <= Self.maximumChannelGroupRows && pixels <= Int(CK_SPCONV_TILE): split = .channelGroups
        default: return nil
        }
        self.expansion = expansion
        self.depthwise = depthwise
    }

    var operatorIndex: Int { depthwise.operatorIndex }
    var inputs: [Int] { expansion.inputs }
    /// In channel groups the expanded image keeps its place in the arena: a sparse expansion on
    /// one thread writes it there, and so does a thread that has no memory of its own for it.
    var outputs: [Int] { split == .bands ? depthwise.outputs : depthwise.outputs + [expansion.output] }
    var summary: String {
        let d = depthwise.parameters
        let way = split == .bands ? "in bands" : "by channels"
        return "CONV_2D 1x1 + DEPTHWISE_CONV_2D \(d.kernel_h)x\(d.kernel_w)/\(d.stride_h) (\(way))"
    }
    var detail: String {
        let d = depthwise.parameters
        return "\(expansion.inputHeight)x\(expansion.inputWidth)x\(expansion.inputChannels) -> \(d.channels) -> \(d.out_h)x\(d.out_w)x\(d.channels)"
    }
    var multiplyAdds: Int { expansion.multiplyAdds + depthwise.multiplyAdds }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let x = try memory.pointer(expansion.input)
        let y = try memory.mutablePointer(depthwise.output)
        // The expansion's output pointer is not used: each thread writes its own scratch.
        var expand = ck_gemm_params(), sparseExpand = ck_spconv_params(), expansionBuffers: [AlignedBuffer]
        if let (params, buffers) = expansion.gemmParameters(input: x, output: y, residual: nil) {
            (expand, expansionBuffers) = (params, buffers)
        } else if let (params, buffers) = expansion.spconvParameters(input: x, output: y, residual: nil, threads: memory.threadCount) {
            (sparseExpand, expansionBuffers) = (params, buffers)
        } else {
            throw InterpreterError.internalInconsistency("operator \(expansion.operatorIndex) is no longer a pointwise convolution")
        }
        let (depthwiseParameters, depthwiseBuffers) = depthwise.boundParameters(input: nil, output: y)
        let sparse: Int32 = sparseExpand.packed == nil ? 0 : 1
        switch split {
        case .bands:
            let slots = max(memory.threadCount, 1)
            var probe = depthwiseParameters
            let scratch = AlignedBuffer(floatCount: slots * ck_expand_dwconv_scratch_floats(&probe, 0, 0))
            let params = ck_expand_dwconv_params(expand: expand, sparse_expand: sparseExpand, sparse: sparse, depthwise: depthwiseParameters,
                                                 by_channels: 0, band_rows: 0, scratch: scratch.floatPointer, scratch_slots: slots)
            return BoundExpansionDepthwise(params: params, keepAlive: expansionBuffers + depthwiseBuffers + [scratch])
        case .channelGroups:
            let image = try memory.mutablePointer(expansion.output)
            let params = ck_expand_dwconv_params(expand: expand, sparse_expand: sparseExpand, sparse: sparse, depthwise: depthwiseParameters,
                                                 by_channels: 1, band_rows: 0, scratch: image, scratch_slots: 1)
            return BoundExpansionDepthwise(params: params, keepAlive: expansionBuffers + depthwiseBuffers)
        }
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
