import CKernels

/// Load-time removal of the dead channels that channel pruning leaves in a model.
///
/// An inverted-residual block is a 1x1 convolution that expands the channels (the expansion),
/// a depthwise convolution over them, and a 1x1 convolution without activation that projects
/// them back (the projection). When the expansion's weights for an output channel are all zero,
/// that channel is a constant, `clamp(bias)`, at every pixel: it carries no information, and
/// the depthwise convolution and the projection only spend multiply-adds on it. The last stage
/// of hand_landmark_full has 565–742 of 1152 such channels per block.
///
/// This pass removes them from the block's operators and computes their contribution at load
/// time. It is not a per-channel constant: with zero padding, a depthwise tap outside the image
/// reads 0, not the constant, so the dead channel's depthwise result depends on how many taps of
/// each output pixel fall inside the image. The contribution is therefore a per-pixel bias of
/// the projection (`[1, height, width, outputs]`), which the projection adds in its epilogue as
/// a constant residual (so a following residual ADD then runs as its own operator). A block
/// may also end, instead of in a projection, in a MEAN over height and width read only by
/// fully connected layers (a model's heads): the dead channels' means then fold into those
/// layers' biases. The result equals the model's up to the order of rounding.
///
/// Only blocks whose every tensor is used by nothing else are rewritten; anything unexpected
/// leaves the block as it is, and the operators' own preparation then validates it as usual.
struct ChannelPruning {
    /// What reads the depthwise convolution's result.
    private enum Tail {
        /// A 1x1 convolution without activation (its operator index).
        case projection(Int)
        /// A MEAN over height and width (its operator index), read only by fully connected layers.
        case mean(Int, heads: [Int])

        var operators: [Int] {
            switch self {
            case let .projection(p): return [p]
            case let .mean(m, heads): return [m] + heads
            }
        }
    }

    /// A block found in the file (indices into the file's operators).
    private struct Block {
        let expansion: Int, depthwise: Int
        let tail: Tail
        let depthwiseOptions: ConvolutionOptions
        let expansionClamp: (lower: Float, upper: Float)
        let depthwiseClamp: (lower: Float, upper: Float)
    }

    /// Blocks are rewritten only when at least one in this many expanded channels is dead.
    static let minimumDeadShare = 8
    /// The number of channels kept is a multiple of this.
    static let channelMultiple = 16
    /// Most multiply-adds spent on one block's dead channels at load time (hand_landmark_full's
    /// largest needs 8 M); a block that would need more (a hostile file) is left as stored.
    static let maximumLoadTimeWork = 1 << 26

    /// Rewrites every prunable block of `graph`; returns the per-pixel bias tensor to add to
    /// each rewritten projection (by operator index) whose dead channels contribute anything.
    /// Call it after folding DEQUANTIZE and DENSIFY of weights, before preparing operators.
    static func apply(to graph: GraphBuilder) throws -> [Int: Int] {
        let file = graph.file
        var readers: [Int: Int] = [:] // tensor -> readings by operators and as a graph output
        var readerList: [Int: [Int]] = [:] // tensor -> the operators reading it
        for (index, op) in file.operators.enumerated() {
            for t in op.inputs where t >= 0 {
                readers[t, default: 0] += 1
                if readerList[t]?.last != index { readerList[t, default: []].append(index) }
            }
        }
        for t in file.outputs { readers[t, default: 0] += 1 }

        var pixelBiases: [Int: Int] = [:]
        var rewritten = Set<Int>() // operators of rewritten blocks, which no other block may share
        for index in file.operators.indices where !rewritten.contains(index) {
            guard let block = match(expansion: index, readers: readers, readerList: readerList, graph: graph),
                  rewritten.isDisjoint(with: [block.depthwise] + block.tail.operators),
                  let outcome = try prune(block, readers: readers, graph: graph) else { continue }
            rewritten.formUnion([index, block.depthwise] + block.tail.operators)
            if case let .projection(p) = block.tail, let bias = outcome.pixelBias { pixelBiases[p] = bias }
        }
        return pixelBiases
    }

    private static func code(of op: OperatorDefinition, in file: ModelFile) -> BuiltinOperator? {
        guard op.opcodeIndex >= 0, op.opcodeIndex < file.operatorCodes.count else { return nil }
        return BuiltinOperator(rawValue: file.operatorCodes[op.opcodeIndex].builtinCode)
    }

    /// The block that starts with operator `e`, when its operators are linked as this pass needs.
    private static func match(expansion e: Int, readers: [Int: Int], readerList: [Int: [Int]], graph: GraphBuilder) -> Block? {
        let file = graph.file
        /// The one operator reading `t`, after operator `after`.
        func onlyReader(_ t: Int, after: Int) -> Int? {
            guard readers[t] == 1, let list = readerList[t], list.count == 1, list[0] > after else { return nil }
            return list[0]
        }
        let expansion = file.operators[e]
        guard code(of: expansion, in: file) == .conv2D, isPointwise(expansion, graph: graph),
              case let .convolution(expansionOptions) = expansion.options,
              let expansionClamp = expansionOptions.activation.clampRange,
              expansion.outputs.count == 1, let expanded = expansion.outputs.first, expanded != expansion.inputs[0],
              let d = onlyReader(expanded, after: e) else { return nil }
        let depthwise = file.operators[d]
        guard code(of: depthwise, in: file) == .depthwiseConv2D, (2...3).contains(depthwise.inputs.count),
              depthwise.inputs[0] == expanded, depthwise.outputs.count == 1, let filtered = depthwise.outputs.first,
              case let .convolution(depthwiseOptions) = depthwise.options,
              let depthwiseClamp = depthwiseOptions.activation.clampRange,
              let t = onlyReader(filtered, after: d) else { return nil }
        let next = file.operators[t]
        let tail: Tail
        switch code(of: next, in: file) {
        case .conv2D:
            guard isPointwise(next, graph: graph), next.inputs[0] == filtered, next.outputs.count == 1,
                  case let .convolution(options) = next.options, options.activation == .none else { return nil }
            tail = .projection(t)
        case .mean:
            guard next.inputs.count == 2, next.inputs[0] == filtered, next.outputs.count == 1,
                  (try? graph.tensor(next.inputs[1])) != nil, let axes = (try? graph.constantInts(next.inputs[1])) ?? nil,
                  Set(axes.compactMap { Shape.axis($0, rank: 4) }) == [1, 2], axes.count == 2,
                  let mean = next.outputs.first, let heads = readerList[mean], readers[mean] == heads.count,
                  heads.allSatisfy({ h in
                      let head = file.operators[h]
                      guard h > t, code(of: head, in: file) == .fullyConnected, (2...3).contains(head.inputs.count),
                            head.inputs[0] == mean, head.inputs.dropFirst().allSatisfy({ $0 != mean }),
                            case let .fullyConnected(_, format, _) = head.options else { return false }
                      return format == 0
                  }) else { return nil }
            tail = .mean(t, heads: heads)
        default:
            return nil
        }
        return Block(expansion: e, depthwise: d, tail: tail, depthwiseOptions: depthwiseOptions,
                     expansionClamp: expansionClamp, depthwiseClamp: depthwiseClamp)
    }

    /// A 1x1, stride-1 CONV_2D with two or three inputs.
    private static func isPointwise(_ op: OperatorDefinition, graph: GraphBuilder) -> Bool {
        guard (2...3).contains(op.inputs.count), case let .convolution(options) = op.options,
              options.strideH == 1, options.strideW == 1, let filter = try? graph.tensor(op.inputs[1]),
              filter.rank == 4, filter.shape[1] == 1, filter.shape[2] == 1 else { return false }
        return true
    }

    private struct Outcome {
        /// The projection's per-pixel bias tensor; nil when the dead channels add nothing.
        var pixelBias: Int?
    }

    /// Removes the block's dead channels; nil when the block is left as it is.
    private static func prune(_ block: Block, readers: [Int: Int], graph: GraphBuilder) throws -> Outcome? {
        let file = graph.file
        let expansion = file.operators[block.expansion], depthwise = file.operators[block.depthwise]
        /// Constant input `i` of operator `op` that nothing else reads: .some(nil) when the input
        /// is omitted, nil when it is not such a constant.
        func constant(_ op: Int, _ i: Int) -> TensorInfo?? {
            let inputs = file.operators[op].inputs
            guard i < inputs.count, inputs[i] >= 0 else { return .some(nil) }
            guard let t = try? graph.tensor(inputs[i]), graph.isConstant(t.index), readers[t.index] == 1 else { return nil }
            return .some(t)
        }
        /// The values of a constant (nil when it cannot be read as floats: the operator's
        /// preparation reports that).
        func floats(_ t: TensorInfo) -> [Float]? { (try? graph.constantFloats(t.index)) ?? nil }

        guard let input = try? graph.tensor(expansion.inputs[0]), let expanded = try? graph.tensor(depthwise.inputs[0]),
              let filtered = try? graph.tensor(depthwise.outputs[0]),
              case let .some(.some(expansionFilter)) = constant(block.expansion, 1),
              case let .some(.some(depthwiseFilter)) = constant(block.depthwise, 1),
              case let .some(expansionBias) = constant(block.expansion, 2),
              case let .some(depthwiseBias) = constant(block.depthwise, 2),
              input.rank == 4, input.shape[0] == 1, filtered.rank == 4, depthwiseFilter.rank == 4 else { return nil }
        let (height, width, inputs) = (input.shape[1], input.shape[2], input.shape[3])
        let channels = expansionFilter.shape[0]
        let (outHeight, outWidth) = (filtered.shape[1], filtered.shape[2])
        let (kh, kw) = (depthwiseFilter.shape[1], depthwiseFilter.shape[2])
        guard expansionFilter.shape == [channels, 1, 1, inputs], expanded.shape == [1, height, width, channels],
              depthwiseFilter.shape == [1, kh, kw, channels], filtered.shape == [1, outHeight, outWidth, channels],
              expansionBias.map({ $0.shape == [channels] }) ?? true, depthwiseBias.map({ $0.shape == [channels] }) ?? true else {
            return nil
        }

        // The tail's weights: a projection's filter, or each head's filter and bias (required,
        // as the dead channels' means are added to it).
        var projectionFilter: TensorInfo?, projected: TensorInfo?
        var mean: TensorInfo?
        var heads: [(filter: TensorInfo, bias: TensorInfo)] = []
        switch block.tail {
        case let .projection(p):
            guard case let .some(.some(filter)) = constant(p, 1), let output = try? graph.tensor(file.operators[p].outputs[0]),
                  filter.shape == [filter.shape[0], 1, 1, channels], output.shape == [1, outHeight, outWidth, filter.shape[0]],
                  filter.shape[0] > Int(CK_NARROW_MAX_OUTPUTS) // a GEMM, which adds the per-pixel bias in its epilogue
            else { return nil }
            (projectionFilter, projected) = (filter, output)
        case let .mean(m, headIndices):
            guard let output = try? graph.tensor(file.operators[m].outputs[0]),
                  output.shape == [1, channels] || output.shape == [1, 1, 1, channels] else { return nil }
            mean = output
            for h in headIndices {
                guard case let .some(.some(filter)) = constant(h, 1), case let .some(.some(bias)) = constant(h, 2),
                      filter.rank == 2, filter.shape[1] == channels, bias.shape == [filter.shape[0]] else { return nil }
                heads.append((filter, bias))
            }
        }

        // The depthwise geometry, as its preparation will resolve it.
        let options = block.depthwiseOptions
        guard options.depthMultiplier <= 1, (1...(1 << 16)).contains(options.strideH), (1...(1 << 16)).contains(options.strideW),
              (1...(1 << 16)).contains(options.dilationH), (1...(1 << 16)).contains(options.dilationW) else { return nil }
        let vertical = ConvolutionGeometry(inputSize: height, filterSize: kh, stride: options.strideH,
                                           dilation: options.dilationH, padding: options.padding)
        let horizontal = ConvolutionGeometry(inputSize: width, filterSize: kw, stride: options.strideW,
                                             dilation: options.dilationW, padding: options.padding)
        guard vertical.outputSize == outHeight, horizontal.outputSize == outWidth else { return nil }

        guard let expansionWeights = floats(expansionFilter), let depthwiseWeights = floats(depthwiseFilter),
              expansionWeights.count == channels * inputs, depthwiseWeights.count == kh * kw * channels else { return nil }
        let zeros = [Float](repeating: 0, count: channels)
        guard let expansionBiases = expansionBias.map(floats) ?? zeros, let depthwiseBiases = depthwiseBias.map(floats) ?? zeros,
              expansionBiases.count == channels, depthwiseBiases.count == channels else { return nil }

        var isDead = (0..<channels).map { k in (0..<inputs).allSatisfy { expansionWeights[k * inputs + $0] == 0 } }
        // Keep whole vectors of channels: the kernels' fast paths need multiples of 8 (the
        // depthwise one took 0.113 ms on 587 channels, 0.0155 on 592) and a GEMM panel has 16
        // outputs. Keeping a dead channel is exact, so the last dead ones are kept.
        var keptDead = (channelMultiple - isDead.filter { !$0 }.count % channelMultiple) % channelMultiple
        for k in stride(from: channels - 1, through: 0, by: -1) where keptDead > 0 && isDead[k] {
            isDead[k] = false
            keptDead -= 1
        }
        let dead = (0..<channels).filter { isDead[$0] }, live = (0..<channels).filter { !isDead[$0] }
        let tailOutputs = (projectionFilter?.shape[0] ?? 0) + heads.reduce(0) { $0 + $1.filter.shape[0] }
        guard !live.isEmpty, dead.count * minimumDeadShare >= channels,
              Double(dead.count) * Double(outHeight * outWidth) * Double(kh * kw + tailOutputs) <= Double(maximumLoadTimeWork) else {
            return nil
        }

        /// A dead channel's depthwise result at every output pixel: clamp(bias) wherever a tap
        /// lands inside the image, 0 in the padding.
        func deadChannel(_ k: Int) -> [Float] {
            let value = min(max(expansionBiases[k], block.expansionClamp.lower), block.expansionClamp.upper)
            var result = [Float](repeating: 0, count: outHeight * outWidth)
            for oy in 0..<outHeight {
                for ox in 0..<outWidth {
                    var sum = depthwiseBiases[k]
                    for ky in 0..<kh {
                        let iy = oy * options.strideH - vertical.paddingBefore + ky * options.dilationH
                        guard iy >= 0, iy < height else { continue }
                        for kx in 0..<kw {
                            let ix = ox * options.strideW - horizontal.paddingBefore + kx * options.dilationW
                            guard ix >= 0, ix < width else { continue }
                            sum += depthwiseWeights[(ky * kw + kx) * channels + k] * value
                        }
                    }
                    result[oy * outWidth + ox] = min(max(sum, block.depthwiseClamp.lower), block.depthwiseClamp.upper)
                }
            }
            return result
        }

        // What the tail receives from the dead channels.
        var pixelBias: [Float] = []
        var contributes = false
        var headWeights: [[Float]] = [], headBiases: [[Float]] = []
        if let projectionFilter {
            let outputs = projectionFilter.shape[0]
            guard let projectionWeights = floats(projectionFilter), projectionWeights.count == outputs * channels else { return nil }
            pixelBias = [Float](repeating: 0, count: outHeight * outWidth * outputs)
            for k in dead {
                for (pixel, activated) in deadChannel(k).enumerated() where activated != 0 {
                    for o in 0..<outputs {
                        let term = projectionWeights[o * channels + k] * activated
                        contributes = contributes || term != 0
                        pixelBias[pixel * outputs + o] += term
                    }
                }
            }
            try graph.replaceConstant(projectionFilter.index, shape: [outputs, 1, 1, live.count],
                                      values: (0..<outputs).flatMap { o in live.map { projectionWeights[o * channels + $0] } })
        } else {
            let means = dead.map { k in deadChannel(k).reduce(0, +) / Float(outHeight * outWidth) }
            for (filter, bias) in heads {
                let outputs = filter.shape[0]
                guard let weights = floats(filter), var biases = floats(bias), weights.count == outputs * channels,
                      biases.count == outputs else { return nil }
                for (k, m) in zip(dead, means) where m != 0 {
                    for o in 0..<outputs { biases[o] += weights[o * channels + k] * m }
                }
                headWeights.append((0..<outputs).flatMap { o in live.map { weights[o * channels + $0] } })
                headBiases.append(biases)
            }
            for (i, (filter, bias)) in heads.enumerated() {
                try graph.replaceConstant(filter.index, shape: [filter.shape[0], live.count], values: headWeights[i])
                try graph.replaceConstant(bias.index, shape: bias.shape, values: headBiases[i])
            }
            if let mean { graph.reshapeActivation(mean.index, shape: Array(mean.shape.dropLast()) + [live.count]) }
        }

        // The expansion and the depthwise convolution keep their live channels, in their order.
        try graph.replaceConstant(expansionFilter.index, shape: [live.count, 1, 1, inputs],
                                  values: live.flatMap { k in expansionWeights[(k * inputs)..<((k + 1) * inputs)] })
        if let expansionBias {
            try graph.replaceConstant(expansionBias.index, shape: [live.count], values: live.map { expansionBiases[$0] })
        }
        try graph.replaceConstant(depthwiseFilter.index, shape: [1, kh, kw, live.count],
                                  values: (0..<(kh * kw)).flatMap { t in live.map { depthwiseWeights[t * channels + $0] } })
        if let depthwiseBias {
            try graph.replaceConstant(depthwiseBias.index, shape: [live.count], values: live.map { depthwiseBiases[$0] })
        }
        graph.reshapeActivation(expanded.index, shape: [1, height, width, live.count])
        graph.reshapeActivation(filtered.index, shape: [1, outHeight, outWidth, live.count])
        guard let projected, contributes else { return Outcome(pixelBias: nil) }
        let bias = try graph.addConstant(name: "\(projected.name) (bias of \(dead.count) pruned channels)",
                                         shape: [1, outHeight, outWidth, projected.shape[3]], values: pixelBias)
        return Outcome(pixelBias: bias)
    }
}
