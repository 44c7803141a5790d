import CKernels

/// Load-time evaluation of the operators that only convert weights: DEQUANTIZE (float16 or
/// affine-quantised int8/uint8 to float32) and DENSIFY (sparse to dense) of constants.
enum ConstantFolding {
    /// Folds the operator when it is a DEQUANTIZE or DENSIFY of a constant; returns whether it did.
    static func fold(_ context: OperatorContext) throws -> Bool {
        switch context.code {
        case .dequantize: return try dequantize(context)
        case .densify: return try densify(context)
        default: return false
        }
    }

    private static func dequantize(_ context: OperatorContext) throws -> Bool {
        try context.requireInputs(1...1)
        try context.requireOutputs(1)
        let input = try context.input(0)
        let output = try context.output(0)
        guard context.isConstant(input) else {
            throw context.unsupported("dequantizing the activation \(input.label) at run time")
        }
        guard output.dataType == .float32 else {
            throw context.unsupported("output \(output.label) has type \(output.dataType); only float32 is supported")
        }
        try context.requireShape(output, input.shape)
        let graph = context.graph
        let values: [Float]
        switch input.dataType {
        case .float16, .float32:
            guard let converted = try graph.constantFloats(input.index) else {
                throw context.invalid("\(input.label) cannot be read")
            }
            values = converted
        case .int8, .uint8:
            values = try affine(context, input)
        default:
            throw context.unsupported("dequantizing \(input.dataType)")
        }
        guard values.count == output.elementCount else {
            throw context.invalid("\(input.label) holds \(values.count) values, \(output.label) needs \(output.elementCount)")
        }
        try graph.fold(output.index, .floats(values))
        return true
    }

    /// real = scale * (q - zero_point), per tensor or per channel of `quantized_dimension`.
    private static func affine(_ context: OperatorContext, _ input: TensorInfo) throws -> [Float] {
        guard let (type, raw) = try context.graph.constantBytes(input.index) else {
            throw context.invalid("\(input.label) cannot be read")
        }
        guard let q = context.graph.file.tensors[input.index].quantization, !q.scale.isEmpty else {
            throw context.invalid("\(input.label) has no quantization scale")
        }
        let channels = q.scale.count
        var axisStride = 1
        if channels > 1 {
            guard q.quantizedDimension >= 0, q.quantizedDimension < input.rank,
                  input.shape[q.quantizedDimension] == channels else {
                throw context.invalid("\(input.label): \(channels) scales do not match dimension \(q.quantizedDimension) of shape \(input.shape)")
            }
            axisStride = Shape.strides(input.shape)[q.quantizedDimension]
        }
        guard q.zeroPoint.isEmpty || q.zeroPoint.count == channels else {
            throw context.invalid("\(input.label): \(q.zeroPoint.count) zero points for \(channels) scales")
        }
        return raw.enumerated().map { i, byte in
            let channel = channels > 1 ? (i / axisStride) % channels : 0
            let value = type == .int8 ? Float(Int8(bitPattern: byte)) : Float(byte)
            let zero = q.zeroPoint.isEmpty ? 0 : Float(q.zeroPoint[channel])
            return q.scale[channel] * (value - zero)
        }
    }

    private static func densify(_ context: OperatorContext) throws -> Bool {
        try context.requireInputs(1...1)
        try context.requireOutputs(1)
        let input = try context.input(0)
        let output = try context.output(0)
        let graph = context.graph
        let range = graph.file.buffers[graph.file.tensors[input.index].buffer].range
        guard let sparsity = graph.file.tensors[input.index].sparsity, !range.isEmpty else {
            throw context.unsupported("densifying \(input.label), which is not a sparse constant")
        }
        guard output.dataType == input.dataType, let size = input.dataType.byteSize else {
            throw context.invalid("output \(output.label) has type \(output.dataType), input has \(input.dataType)")
        }
        try context.requireShape(output, input.shape)
        let dense = try Densifier.densify(shape: input.shape, sparsity: sparsity,
                                          values: Array(graph.bytes[range]), elementSize: size,
                                          context: "operator \(context.index) (DENSIFY), \(input.label)")
        if input.dataType == .float32 {
            try graph.fold(output.index, .floats(dense.withUnsafeBytes { b in
                (0..<(dense.count / 4)).map { Float(bitPattern: UInt32(littleEndian: b.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
            }))
        } else {
            try graph.fold(output.index, .raw(input.dataType, dense))
        }
        return true
    }
}
