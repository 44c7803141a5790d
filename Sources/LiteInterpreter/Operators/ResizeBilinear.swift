import CKernels

/// RESIZE_BILINEAR with TensorFlow's align_corners and half_pixel_centers conventions.
struct ResizeBilinearOperation: PreparedOperation {
    let operatorIndex: Int
    let input: Int, output: Int
    let parameters: ck_resize_params

    var inputs: [Int] { [input] }
    var outputs: [Int] { [output] }
    var summary: String { "RESIZE_BILINEAR" }

    static func prepare(_ context: OperatorContext) throws -> ResizeBilinearOperation {
        try context.requireInputs(2...2)
        try context.requireOutputs(1)
        var alignCorners = false, halfPixelCenters = false
        if case let .resizeBilinear(align, half) = context.options {
            alignCorners = align
            halfPixelCenters = half
        }
        let input = try context.float32(try context.input(0))
        let size = try context.constantInts(try context.input(1))
        let output = try context.float32(try context.output(0))
        try context.requireRank(input, 4)
        guard size.count == 2, size[0] > 0, size[1] > 0 else {
            throw context.invalid("size \(size) must be two positive values")
        }
        try context.requireShape(output, [input.shape[0], size[0], size[1], input.shape[3]])
        return ResizeBilinearOperation(
            operatorIndex: context.index, input: input.index, output: output.index,
            parameters: ck_resize_params(batch: input.shape[0], in_h: input.shape[1], in_w: input.shape[2], channels: input.shape[3],
                                         out_h: size[0], out_w: size[1], align_corners: alignCorners ? 1 : 0,
                                         half_pixel_centers: halfPixelCenters ? 1 : 0, input: nil, output: nil,
                                         out_min: -.infinity, out_max: .infinity))
    }

    /// The same resize of `input`, a tensor of the same height and width with `channels`
    /// channels, writing `output` with its results clamped to `lower...upper`.
    func resizing(_ input: Int, channels: Int, output: Int, lower: Float, upper: Float) -> ResizeBilinearOperation {
        var parameters = parameters
        parameters.channels = channels
        parameters.out_min = lower
        parameters.out_max = upper
        return ResizeBilinearOperation(operatorIndex: operatorIndex, input: input, output: output, parameters: parameters)
    }

    /// The input's and the output's shapes ([batch, height, width, channels]).
    var inputShape: [Int] { [parameters.batch, parameters.in_h, parameters.in_w, parameters.channels] }
    var outputShape: [Int] { [parameters.batch, parameters.out_h, parameters.out_w, parameters.channels] }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        var params = parameters
        params.input = try memory.pointer(input)
        params.output = try memory.mutablePointer(output)
        let pinned = PinnedParameters(params)
        return BoundClosure { pool in ck_resize_bilinear(pinned.pointer, pool) }
    }
}

extension ck_resize_params: @retroactive @unchecked Sendable {}
