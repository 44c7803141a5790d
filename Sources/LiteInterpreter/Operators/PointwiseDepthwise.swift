import CKernels

/// A pointwise (1x1) convolution and the depthwise convolution that is the only reader of its
/// output, run together in bands of rows (`ck_pointwise_dwconv`): each band of the expanded
/// tensor is read by the depthwise while it is still in the cache. Both outputs hold the bits
/// the two operators give run one after the other; the expanded tensor is still written (it has
/// its place in the memory plan, for this step only).
struct PointwiseDepthwiseOperation: PreparedOperation {
    let pointwise: Conv2DOperation
    let depthwise: DepthwiseConv2DOperation

    /// Expanded tensors of fewer bytes than this run as two operators: they stay in the L2 cache
    /// anyway, and their depthwise shares small images between threads by channels, not rows.
    static let minimumExpandedBytes = 262_144

    /// Whether `pointwise` and then `depthwise` can run in bands: a 1x1 convolution of one image
    /// as a float32 GEMM whose output needs no pass of its own (no tanh), large enough to pay.
    /// The caller checks that the depthwise is its output's only reader.
    static func fits(_ pointwise: Conv2DOperation, _ depthwise: DepthwiseConv2DOperation) -> Bool {
        guard case let .packed(_, half) = pointwise.weights, !half, pointwise.isPointwise, !pointwise.activation.tanh,
              pointwise.batch == 1, depthwise.input == pointwise.output, depthwise.parameters.batch == 1 else { return false }
        return pointwise.outputHeight * pointwise.outputWidth * pointwise.outputChannels * 4 >= minimumExpandedBytes
    }

    var operatorIndex: Int { depthwise.operatorIndex }
    var inputs: [Int] { pointwise.inputs }
    /// The expanded tensor too, so that the memory plan gives it a place at this step.
    var outputs: [Int] { depthwise.outputs + pointwise.outputs }
    var summary: String { "\(pointwise.summary) + \(depthwise.summary), in bands" }
    var detail: String {
        let p = depthwise.parameters
        return "\(pointwise.detail) -> \(p.out_h)x\(p.out_w)x\(p.channels)"
    }
    var multiplyAdds: Int { pointwise.multiplyAdds + depthwise.multiplyAdds }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let first = try pointwise.bind(memory), second = try depthwise.bind(memory)
        guard let gemm = first as? BoundGEMM, let filter = second as? BoundDepthwise,
              gemm.params.pointer.pointee.c == filter.params.pointer.pointee.input else {
            throw InterpreterError.internalInconsistency("operators \(pointwise.operatorIndex) and \(depthwise.operatorIndex) cannot run in bands")
        }
        return BoundPointwiseDepthwise(gemm: gemm, depthwise: filter)
    }
}

final class BoundPointwiseDepthwise: BoundOperation {
    let gemm: BoundGEMM
    let depthwise: BoundDepthwise

    init(gemm: BoundGEMM, depthwise: BoundDepthwise) {
        self.gemm = gemm
        self.depthwise = depthwise
    }

    override func run(pool: OpaquePointer?) {
        ck_pointwise_dwconv(gemm.params.pointer, depthwise.params.pointer, pool)
        depthwise.post.run()
    }
}
