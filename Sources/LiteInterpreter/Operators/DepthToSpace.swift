import CKernels

/// DEPTH_TO_SPACE (NHWC, TensorFlow's depth-column-row order).
struct DepthToSpaceOperation: PreparedOperation {
    let operatorIndex: Int
    let input: Int, output: Int
    let dims: [Int]
    let strides: [Int]

    var inputs: [Int] { [input] }
    var outputs: [Int] { [output] }
    var summary: String { "DEPTH_TO_SPACE" }

    static func prepare(_ context: OperatorContext) throws -> DepthToSpaceOperation {
        try context.requireInputs(1...1)
        try context.requireOutputs(1)
        guard case let .depthToSpace(block) = context.options else { throw context.invalid("missing DepthToSpaceOptions") }
        let input = try context.runtimeInput(0)
        let output = try context.float32(try context.output(0))
        try context.requireRank(input, 4)
        let (n, h, w, c) = (input.shape[0], input.shape[1], input.shape[2], input.shape[3])
        guard block >= 1, block <= 1 << 12, c % (block * block) == 0 else {
            throw context.invalid("block size \(block) does not divide the \(c) channels into \(block)x\(block) blocks")
        }
        let oc = c / (block * block)
        try context.requireShape(output, [n, h * block, w * block, oc])
        // out[nh][dy][w][dx][c] = in[nh][w][(dy * block + dx) * oc + c]
        return DepthToSpaceOperation(operatorIndex: context.index, input: input.index, output: output.index,
                                     dims: [n * h, block, w, block, oc],
                                     strides: [w * c, block * oc, c, oc, 1])
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let x = try memory.pointer(input), y = try memory.mutablePointer(output)
        let (dims, strides) = (dims, strides)
        return BoundClosure { pool in ck_copy_strided(dims.count, dims, x, strides, y, pool) }
    }
}
