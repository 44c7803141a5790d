import CKernels

/// Turns a parsed model file into a `Program`: validates every tensor, the graph's order and
/// every operator, folds constant work (DEQUANTIZE and DENSIFY of weights), prepares the
/// operators (packing weights), fuses PRELU into the operator before it, and plans memory.
final class GraphBuilder {
    /// Largest number of elements of one tensor (256 MiB of float32).
    static let maximumElementCount = 1 << 26
    /// Largest activation arena.
    static let maximumArenaBytes = 1 << 30

    let file: ModelFile
    let bytes: UnsafeRawBufferPointer
    /// Whether `ChannelPruning` removes dead channels (off only to compare with the model as stored).
    let pruneChannels: Bool
    private var infos: [TensorInfo] = []
    /// Constants computed at load time (DEQUANTIZE, DENSIFY outputs).
    private var folded: [Int: FoldedConstant] = [:]
    /// Float32 constants that operators read at run time.
    private(set) var runtimeConstants: [Int: AlignedBuffer] = [:]
    /// Bytes the preparation may still allocate for constants and packed weights.
    private var budget: Int

    enum FoldedConstant {
        case floats([Float])
        case raw(TensorDataType, [UInt8])
    }

    init(file: ModelFile, bytes: UnsafeRawBufferPointer, pruneChannels: Bool = true) throws {
        self.file = file
        self.bytes = bytes
        self.pruneChannels = pruneChannels
        budget = max(256 << 20, bytes.count * 32)
        infos = try file.tensors.enumerated().map { try GraphBuilder.validate(tensor: $1, index: $0, file: file) }
    }

    private static func validate(tensor: TensorDefinition, index: Int, file: ModelFile) throws -> TensorInfo {
        let info = "tensor \(index)" + (tensor.name.isEmpty ? "" : " (\(tensor.name))")
        var count = 1
        for (d, dim) in tensor.shape.enumerated() {
            guard dim > 0 else {
                throw ModelError.invalid("\(info): dimension \(d) of shape \(tensor.shape) is \(dim); dynamic or empty shapes are not supported")
            }
            let (product, overflow) = count.multipliedReportingOverflow(by: dim)
            guard !overflow, product <= maximumElementCount else {
                throw ModelError.invalid("\(info): shape \(tensor.shape) has more than the \(maximumElementCount) elements allowed")
            }
            count = product
        }
        guard tensor.buffer < file.buffers.count else {
            throw ModelError.invalid("\(info): buffer \(tensor.buffer) out of range (file has \(file.buffers.count) buffers)")
        }
        let data = file.buffers[tensor.buffer].range
        if !data.isEmpty, tensor.sparsity == nil {
            guard let size = tensor.dataType.byteSize else {
                throw ModelError.unsupported("\(info): constant of type \(tensor.dataType)")
            }
            guard data.count == count * size else {
                throw ModelError.invalid("\(info): buffer \(tensor.buffer) holds \(data.count) bytes but shape \(tensor.shape) of \(tensor.dataType) needs \(count * size)")
            }
        }
        return TensorInfo(index: index, name: tensor.name, shape: tensor.shape, dataType: tensor.dataType, elementCount: count)
    }

    // MARK: Tensors and constants

    func tensor(_ index: Int) throws -> TensorInfo {
        guard index >= 0, index < infos.count else {
            throw ModelError.invalid("tensor index \(index) out of range (subgraph has \(infos.count) tensors)")
        }
        return infos[index]
    }

    private func fileData(_ index: Int) -> Range<Int>? {
        let range = file.buffers[file.tensors[index].buffer].range
        return range.isEmpty ? nil : range
    }

    func isConstant(_ index: Int) -> Bool {
        folded[index] != nil || (index >= 0 && index < file.tensors.count && fileData(index) != nil)
    }

    /// Raw little-endian bytes and type of a constant (nil for activations).
    func constantBytes(_ index: Int) throws -> (TensorDataType, [UInt8])? {
        if let value = folded[index] {
            switch value {
            case let .floats(floats): return (.float32, floats.withUnsafeBytes { Array($0) })
            case let .raw(type, raw): return (type, raw)
            }
        }
        guard let range = fileData(index) else { return nil }
        guard file.tensors[index].sparsity == nil else {
            throw ModelError.unsupported("\(infos[index].label) is stored sparse; only DENSIFY can read it")
        }
        return (infos[index].dataType, Array(bytes[range]))
    }

    func constantFloats(_ index: Int) throws -> [Float]? {
        if case let .floats(values)? = folded[index] { return values }
        guard let (type, raw) = try constantBytes(index) else { return nil }
        switch type {
        case .float32:
            return raw.withUnsafeBytes { buffer in
                (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
            }
        case .float16:
            let halves = raw.withUnsafeBytes { buffer in
                (0..<(raw.count / 2)).map { UInt16(littleEndian: buffer.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self)) }
            }
            var result = [Float](repeating: 0, count: halves.count)
            halves.withUnsafeBufferPointer { h in
                result.withUnsafeMutableBufferPointer { f in
                    if let hb = h.baseAddress, let fb = f.baseAddress { ck_f16_to_f32(hb, fb, h.count) }
                }
            }
            return result
        default:
            return nil
        }
    }

    func constantInts(_ index: Int) throws -> [Int]? {
        guard let (type, raw) = try constantBytes(index) else { return nil }
        return raw.withUnsafeBytes { buffer -> [Int]? in
            switch type {
            case .int32: return (0..<(raw.count / 4)).map { Int(Int32(littleEndian: buffer.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self))) }
            case .int64: return (0..<(raw.count / 8)).map { Int(Int64(littleEndian: buffer.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self))) }
            default: return nil
            }
        }
    }

    func keepRuntimeConstant(_ index: Int) throws {
        if runtimeConstants[index] != nil { return }
        guard let values = try constantFloats(index) else {
            throw ModelError.unsupported("\(infos[index].label): constant of type \(infos[index].dataType) cannot be read as float32")
        }
        try charge(values.count * 4, what: "constant \(infos[index].label)")
        runtimeConstants[index] = AlignedBuffer(floats: values)
    }

    func allocateConstant(floatCount: Int, for context: OperatorContext) throws -> AlignedBuffer {
        try charge(floatCount * 4, what: "packed weights of operator \(context.index) (\(context.name))")
        return AlignedBuffer(floatCount: floatCount)
    }

    /// Replaces a constant's values and shape (a load-time rewrite such as `ChannelPruning`).
    func replaceConstant(_ index: Int, shape: [Int], values: [Float]) throws {
        try charge(values.count * 4, what: "constant \(infos[index].label)")
        folded[index] = .floats(values)
        infos[index].shape = shape
        infos[index].dataType = .float32
        infos[index].elementCount = values.count
    }

    /// Gives an activation tensor another shape (a load-time rewrite that removes channels).
    func reshapeActivation(_ index: Int, shape: [Int]) {
        infos[index].shape = shape
        infos[index].elementCount = Shape.elementCount(shape)
    }

    /// Adds a float32 constant made at load time; returns its tensor index.
    func addConstant(name: String, shape: [Int], values: [Float]) throws -> Int {
        let index = infos.count
        infos.append(TensorInfo(index: index, name: name, shape: shape, dataType: .float32, elementCount: values.count))
        try fold(index, .floats(values))
        return index
    }

    private func charge(_ bytes: Int, what: String) throws {
        guard bytes <= budget else {
            throw ModelError.invalid("\(what) would need \(bytes) bytes, more than this model file can justify")
        }
        budget -= bytes
    }

    // MARK: Building

    func build() throws -> Program {
        let tensorCount = infos.count
        for (role, list) in [("input", file.inputs), ("output", file.outputs)] {
            for (i, t) in list.enumerated() {
                guard t >= 0, t < tensorCount else {
                    throw ModelError.invalid("graph \(role) \(i): tensor \(t) out of range (subgraph has \(tensorCount) tensors)")
                }
                guard infos[t].dataType == .float32 else {
                    throw ModelError.unsupported("graph \(role) \(i) (\(infos[t].label)) has type \(infos[t].dataType); only float32 inputs and outputs are supported")
                }
            }
        }
        guard !file.inputs.isEmpty, !file.outputs.isEmpty else {
            throw ModelError.invalid("the graph has \(file.inputs.count) inputs and \(file.outputs.count) outputs")
        }
        var available = Set<Int>()
        for t in 0..<tensorCount where fileData(t) != nil { available.insert(t) }
        for (i, t) in file.inputs.enumerated() {
            guard !available.contains(t) else {
                throw ModelError.invalid("graph input \(i) (\(infos[t].label)) is a constant or listed twice")
            }
            available.insert(t)
        }

        // Weights first (DEQUANTIZE and DENSIFY of constants, wherever they stand), so that the
        // load-time rewrites of whole blocks see them; an operator that cannot be folded here is
        // folded, or reported, in order below.
        var foldedEarly = Set<Int>()
        for (index, op) in file.operators.enumerated() where op.opcodeIndex < file.operatorCodes.count {
            guard let code = BuiltinOperator(rawValue: file.operatorCodes[op.opcodeIndex].builtinCode),
                  code == .dequantize || code == .densify, op.outputs.allSatisfy({ $0 >= 0 && $0 < tensorCount && !isConstant($0) }),
                  (try? ConstantFolding.fold(OperatorContext(index: index, code: code, definition: op, graph: self))) == true else {
                continue
            }
            foldedEarly.insert(index)
        }
        let pixelBiases = pruneChannels ? try ChannelPruning.apply(to: self) : [:]

        var prepared: [any PreparedOperation] = []
        for (index, op) in file.operators.enumerated() {
            guard op.opcodeIndex < file.operatorCodes.count else {
                throw ModelError.invalid("operator \(index): opcode index \(op.opcodeIndex) out of range (file has \(file.operatorCodes.count) operator codes)")
            }
            let opcode = file.operatorCodes[op.opcodeIndex]
            let code = opcode.builtinCode
            guard let builtin = BuiltinOperator(rawValue: code) else {
                let name = code == 32 ? "CUSTOM \"\(opcode.customCode ?? "")\"" : BuiltinOperator.name(of: code)
                throw ModelError.unsupportedOperator(index: index, name: name, code: Int(code))
            }
            let label = "operator \(index) (\(builtin.name))"
            for t in op.inputs where t != -1 {
                guard t >= 0, t < tensorCount else {
                    throw ModelError.invalid("\(label): input tensor \(t) out of range (subgraph has \(tensorCount) tensors)")
                }
                guard available.contains(t) else {
                    throw ModelError.invalid("\(label): input \(infos[t].label) is read before any operator writes it (the graph is cyclic or out of order)")
                }
            }
            for t in op.outputs {
                guard t >= 0, t < tensorCount else {
                    throw ModelError.invalid("\(label): output tensor \(t) out of range (subgraph has \(tensorCount) tensors)")
                }
                guard !available.contains(t) else {
                    throw ModelError.invalid("\(label): output \(infos[t].label) is already defined (a constant, a graph input or written twice)")
                }
            }
            let context = OperatorContext(index: index, code: builtin, definition: op, graph: self)
            if try foldedEarly.contains(index) || ConstantFolding.fold(context) {
                op.outputs.forEach { available.insert($0) }
                continue
            }
            var operation = try OperatorRegistry.prepare(context)
            if let bias = pixelBiases[index] {
                // A pruned block's projection adds what its dead channels contributed.
                guard let projection = operation as? Conv2DOperation, projection.fusableOutput == projection.output else {
                    throw ModelError.invalid("\(label): the bias of its pruned channels cannot be added")
                }
                try keepRuntimeConstant(bias)
                operation = projection.fusing(residual: bias, lower: -.infinity, upper: .infinity, output: projection.output)
            }
            prepared.append(operation)
            op.outputs.forEach { available.insert($0) }
        }
        for (i, t) in file.outputs.enumerated() where !available.contains(t) {
            throw ModelError.invalid("graph output \(i) (\(infos[t].label)) is never written")
        }
        for (i, t) in file.outputs.enumerated() where isConstant(t) {
            throw ModelError.unsupported("graph output \(i) (\(infos[t].label)) is a constant")
        }

        prepared = commuteResizeAndPointwise(prepared)
        prepared = fusePadding(prepared)
        prepared = fuseResidualAdd(prepared)
        prepared = fusePReLU(prepared)
        prepared = fuseSiLU(prepared)
        prepared = fuseExpansionIntoDepthwise(prepared)
        let schedule = scheduled(prepared)
        let (plan, threadedPlan) = try planMemory(prepared, schedule: schedule)
        return Program(operations: prepared, schedule: schedule, plan: plan, threadedPlan: threadedPlan, runtimeConstants: runtimeConstants,
                       inputs: file.inputs.map { infos[$0] }, outputs: file.outputs.map { infos[$0] })
    }

    func fold(_ index: Int, _ value: FoldedConstant) throws {
        switch value {
        case let .floats(values): try charge(values.count * 4, what: "constant \(infos[index].label)")
        case let .raw(_, raw): try charge(raw.count, what: "constant \(infos[index].label)")
        }
        folded[index] = value
    }

    /// How many operators (and graph outputs) read each tensor.
    private func readers(_ operations: [any PreparedOperation]) -> [Int: Int] {
        var readers: [Int: Int] = [:]
        for op in operations { for t in op.inputs { readers[t, default: 0] += 1 } }
        for t in file.outputs { readers[t, default: 0] += 1 }
        return readers
    }

    /// Runs each pointwise convolution (1x1, stride 1, no padding) that is the only reader of
    /// an upscaling bilinear resize before that resize instead, on the smaller image, and its
    /// activation (a clamp such as RELU6) after the resize: resizing then convolving equals
    /// convolving then resizing, because the convolution is the same affine map at every pixel
    /// and each resized pixel is a weighted sum of input pixels whose weights add up to one (so
    /// the bias passes through unchanged); the clamp then applies to the same values. The
    /// results differ from the model's order by rounding only; the convolution does 4x fewer
    /// multiply-adds after a 2x upscale, and the resize moves the convolution's output channels
    /// instead of its input channels. Pose detection's 7x7x1152 -> 14x14 resize and 1152 -> 192
    /// convolution (its most expensive layer) becomes a 1152 -> 192 convolution at 7x7 and a
    /// resize of 192 channels; palm detection has two such pairs. A tensor of the intermediate
    /// size is added to the plan for the convolution's new output.
    private func commuteResizeAndPointwise(_ operations: [any PreparedOperation]) -> [any PreparedOperation] {
        let readers = readers(operations)
        var result = operations
        for (i, op) in operations.enumerated() {
            guard let resize = op as? ResizeBilinearOperation, readers[resize.output] == 1,
                  Shape.elementCount(resize.inputShape) < Shape.elementCount(resize.outputShape),
                  let j = operations.indices.first(where: { $0 > i && operations[$0].inputs.contains(resize.output) }),
                  let convolution = operations[j] as? Conv2DOperation, convolution.input == resize.output,
                  convolution.activation.residual == nil, convolution.activation.preluSlopes == nil,
                  !convolution.activation.tanh, convolution.batch == resize.inputShape[0] else { continue }
            let (batch, height, width) = (resize.inputShape[0], resize.inputShape[1], resize.inputShape[2])
            let channels = convolution.outputChannels
            let smaller = TensorInfo(index: infos.count, name: "\(infos[convolution.output].name) (before resizing)",
                                     shape: [batch, height, width, channels], dataType: .float32,
                                     elementCount: batch * height * width * channels)
            guard let early = convolution.pointwiseWithoutActivation(on: resize.input, height: height, width: width,
                                                                     output: smaller.index) else { continue }
            infos.append(smaller)
            result[i] = early
            result[j] = resize.resizing(smaller.index, channels: channels, output: convolution.output,
                                        lower: convolution.activation.lower, upper: convolution.activation.upper)
        }
        return result
    }

    /// Removes each zero PAD of height and width whose readers are all convolutions (each
    /// reading it once, as the input they pad), which then pad by themselves: pose detection's
    /// heads pad one tensor for two depthwise convolutions.
    private func fusePadding(_ operations: [any PreparedOperation]) -> [any PreparedOperation] {
        let readers = readers(operations)
        var replacements: [Int: any PreparedOperation] = [:] // reader index -> fused reader
        var removed = Set<Int>()
        for (i, op) in operations.enumerated() {
            guard let pad = op as? PadOperation, pad.inputDims.count == 4, pad.before[0] == 0, pad.before[3] == 0,
                  pad.inputDims[0] == pad.outputDims[0], pad.inputDims[3] == pad.outputDims[3],
                  let count = readers[pad.output], count >= 1, !isConstant(pad.input) else { continue }
            let readerIndices = operations.indices.filter { $0 > i && operations[$0].inputs.contains(pad.output) }
            // Every reading (graph outputs and earlier operators included) must be one of these.
            guard readerIndices.count == count,
                  readerIndices.allSatisfy({ j in operations[j].inputs.filter { $0 == pad.output }.count == 1 }) else {
                continue
            }
            var fused: [Int: any PreparedOperation] = [:]
            for j in readerIndices {
                guard let convolution = (replacements[j] ?? operations[j]) as? any PaddingFusable,
                      convolution.paddedInput == pad.output else { break }
                fused[j] = convolution.fusing(padding: pad.input, height: pad.inputDims[1], width: pad.inputDims[2],
                                              top: pad.before[1], left: pad.before[2])
            }
            guard fused.count == readerIndices.count else { continue }
            replacements.merge(fused) { _, new in new }
            removed.insert(i)
        }
        return operations.indices.compactMap { removed.contains($0) ? nil : (replacements[$0] ?? operations[$0]) }
    }

    /// Moves each ADD of two same-shaped tensors into the operator that writes one of them (when
    /// nothing else reads that tensor and the other one exists by then): the operator adds the
    /// other tensor to its result, so the sum is written once instead of read back.
    private func fuseResidualAdd(_ operations: [any PreparedOperation]) -> [any PreparedOperation] {
        let readers = readers(operations)
        var result: [any PreparedOperation] = []
        var producer: [Int: Int] = [:] // tensor -> index in result
        for op in operations {
            if let add = op as? ElementwiseBinaryOperation, add.operation == CK_BINARY_ADD,
               add.activation.acceptsResidual, add.aShape == add.outputShape, add.bShape == add.outputShape {
                // Try the operand written last first: the other one is then surely available.
                let candidates = [(add.a, add.b), (add.b, add.a)].sorted { (producer[$0.0] ?? -1) > (producer[$1.0] ?? -1) }
                var fused = false
                for (sum, other) in candidates where sum != other {
                    guard readers[sum] == 1, let p = producer[sum],
                          let fusable = result[p] as? any ResidualFusable, fusable.fusableOutput == sum,
                          (producer[other] ?? -1) < p else { continue }
                    result[p] = fusable.fusing(residual: other, lower: add.activation.lower, upper: add.activation.upper,
                                               output: add.output)
                    producer[add.output] = p
                    fused = true
                    break
                }
                if fused { continue }
            }
            for t in op.outputs { producer[t] = result.count }
            result.append(op)
        }
        return result
    }

    /// Moves each PRELU whose input is written by a fusable operator (and read by nothing else)
    /// into that operator.
    private func fusePReLU(_ operations: [any PreparedOperation]) -> [any PreparedOperation] {
        let readers = readers(operations)
        var result: [any PreparedOperation] = []
        var producer: [Int: Int] = [:] // tensor -> index in result
        for op in operations {
            if let prelu = op as? PReLUOperation, let slopes = prelu.channelSlopes,
               readers[prelu.input] == 1, let p = producer[prelu.input],
               let fusable = result[p] as? any PReLUFusable, fusable.preluChannels == slopes.floatCount,
               fusable.outputs == [prelu.input] {
                result[p] = fusable.fusing(preluSlopes: slopes, output: prelu.output)
                producer[prelu.output] = p
                continue
            }
            for t in op.outputs { producer[t] = result.count }
            result.append(op)
        }
        return result
    }

    /// Runs each large pointwise expansion together with the depthwise convolution that alone
    /// reads it (`ExpansionDepthwiseOperation`), in the depthwise layer's place.
    private func fuseExpansionIntoDepthwise(_ operations: [any PreparedOperation]) -> [any PreparedOperation] {
        let readers = readers(operations)
        var result: [(any PreparedOperation)?] = []
        var producer: [Int: Int] = [:] // tensor -> index in result
        for op in operations {
            if let depthwise = op as? DepthwiseConv2DOperation, let p = producer[depthwise.input],
               let expansion = result[p] as? Conv2DOperation,
               let fused = ExpansionDepthwiseOperation(expansion: expansion, depthwise: depthwise,
                                                       readersOfExpansion: readers[depthwise.input] ?? 0) {
                result[p] = nil
                for t in fused.outputs { producer[t] = result.count }
                result.append(fused)
                continue
            }
            for t in op.outputs { producer[t] = result.count }
            result.append(op)
        }
        return result.compactMap { $0 }
    }

    /// Replaces each LOGISTIC whose output only the MUL of it by its input reads with one SiLU
    /// operator, which also takes over a MUL and then an ADD by per-channel constants that write
    /// that input (when nothing else reads their results).
    private func fuseSiLU(_ operations: [any PreparedOperation]) -> [any PreparedOperation] {
        let readers = readers(operations)
        var result: [(any PreparedOperation)?] = []
        var producer: [Int: Int] = [:] // tensor -> index in result
        /// The element-wise operator `op` of a tensor of `shape` and a constant of its last
        /// dimension, with no activation: the other operand and the constant.
        func constantStep(_ index: Int?, _ op: ck_binary_op) -> (input: Int, constant: Int)? {
            guard let index, let binary = result[index] as? ElementwiseBinaryOperation, binary.operation == op,
                  binary.activation.isIdentity, let channels = binary.outputShape.last, channels > 0 else { return nil }
            for (x, c) in [(binary.a, binary.b), (binary.b, binary.a)] where x != c {
                let xShape = x == binary.a ? binary.aShape : binary.bShape
                guard xShape == binary.outputShape, !isConstant(x), let constant = runtimeConstants[c],
                      constant.floatCount == channels else { continue }
                return (x, c)
            }
            return nil
        }
        for op in operations {
            if let mul = op as? ElementwiseBinaryOperation, mul.operation == CK_BINARY_MUL, mul.activation.isIdentity,
               mul.aShape == mul.outputShape, mul.bShape == mul.outputShape, mul.a != mul.b,
               let channels = mul.outputShape.last, channels > 0 {
                var fused = false
                for (y, s) in [(mul.a, mul.b), (mul.b, mul.a)] {
                    guard readers[s] == 1, let p = producer[s], let logistic = result[p] as? UnaryOperation,
                          logistic.operation == CK_UNARY_LOGISTIC, logistic.input == y else { continue }
                    var input = y, scale: Int?, shift: Int?
                    var absorbed: [Int] = []
                    if readers[y] == 2, let add = constantStep(producer[y], CK_BINARY_ADD), let q = producer[y] {
                        input = add.input
                        shift = add.constant
                        absorbed.append(q)
                        if readers[add.input] == 1, let r = producer[add.input], let multiply = constantStep(r, CK_BINARY_MUL) {
                            input = multiply.input
                            scale = multiply.constant
                            absorbed.append(r)
                        }
                    }
                    for index in absorbed { result[index] = nil }
                    result[p] = SiLUOperation(operatorIndex: logistic.operatorIndex, input: input, scale: scale, shift: shift,
                                              output: mul.output, count: logistic.count, channels: channels)
                    producer[mul.output] = p
                    fused = true
                    break
                }
                if fused { continue }
            }
            for t in op.outputs { producer[t] = result.count }
            result.append(op)
        }
        return result.compactMap { $0 }
    }

    /// The operations' schedule: what each reads and writes, its work (multiply-adds, or output
    /// elements for operations that do none) and the size of every tensor written at run time.
    private func scheduled(_ operations: [any PreparedOperation]) -> ExecutionSchedule {
        var elements: [Int: Int] = [:]
        for t in file.inputs + operations.flatMap(\.outputs) { elements[t] = infos[t].elementCount }
        let nodes = operations.map { op in
            ExecutionSchedule.Node(inputs: op.inputs, outputs: op.outputs,
                                   work: max(op.multiplyAdds, op.outputs.reduce(0) { $0 + infos[$1].elementCount }))
        }
        return ExecutionSchedule(nodes, elements: elements)
    }

    /// The packed plan, and the centred one for interpreters on several threads (the packed one
    /// again should the centred one exceed the arena limit). A tensor lives from the schedule's
    /// step that first uses it to the last: the operations of a step of branches run at once.
    private func planMemory(_ operations: [any PreparedOperation], schedule: ExecutionSchedule) throws -> (packed: MemoryPlan, threaded: MemoryPlan) {
        var first: [Int: Int] = [:]
        var last: [Int: Int] = [:]
        func use(_ t: Int, _ step: Int) {
            guard !isConstant(t) else { return }
            first[t] = min(first[t] ?? step, step)
            last[t] = max(last[t] ?? step, step)
        }
        let end = schedule.steps.count
        for t in file.inputs { use(t, 0); use(t, end) }
        for (index, op) in operations.enumerated() {
            let step = schedule.stepOfOperation[index]
            for t in op.inputs { use(t, step) }
            for t in op.outputs { use(t, step) }
        }
        for t in file.outputs { use(t, end) }
        let lifetimes = first.keys.sorted().map { t in
            MemoryPlan.Lifetime(tensor: t, bytes: infos[t].elementCount * 4, first: first[t] ?? 0, last: last[t] ?? end)
        }
        let plan = MemoryPlan(lifetimes: lifetimes)
        guard plan.size <= GraphBuilder.maximumArenaBytes else {
            throw ModelError.invalid("activations need \(plan.size) bytes, more than the \(GraphBuilder.maximumArenaBytes)-byte limit")
        }
        let centered = MemoryPlan(lifetimes: lifetimes, layout: .centered)
        return (plan, centered.size <= GraphBuilder.maximumArenaBytes ? centered : plan)
    }
}

/// A prepared model: operators in execution order, the memory plans and run-time constants.
struct Program: Sendable {
    var operations: [any PreparedOperation]
    /// The order the operations run in: one by one, or independent branches side by side.
    var schedule: ExecutionSchedule
    /// The memory plan for one thread (packed).
    var plan: MemoryPlan
    /// The memory plan for several threads (centred, `MemoryPlan.Layout`).
    var threadedPlan: MemoryPlan
    var runtimeConstants: [Int: AlignedBuffer]
    var inputs: [TensorInfo]
    var outputs: [TensorInfo]
}
