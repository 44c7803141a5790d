import CKernels

/// STRIDED_SLICE with constant begin, end and strides (begin, end, shrink-axis masks and the
/// offset flag; ellipsis and new-axis masks are not supported).
struct StridedSliceOperation: PreparedOperation {
    let operatorIndex: Int
    let input: Int, output: Int
    let start: Int
    let dims: [Int]
    let strides: [Int]

    var inputs: [Int] { [input] }
    var outputs: [Int] { [output] }
    var summary: String { "STRIDED_SLICE" }

    static func prepare(_ context: OperatorContext) throws -> StridedSliceOperation {
        try context.requireInputs(4...4)
        try context.requireOutputs(1)
        guard case let .stridedSlice(options) = context.options else { throw context.invalid("missing StridedSliceOptions") }
        guard options.ellipsisMask == 0, options.newAxisMask == 0 else {
            throw context.unsupported("ellipsis or new-axis masks")
        }
        let input = try context.runtimeInput(0)
        let begin = try context.constantInts(try context.input(1))
        let end = try context.constantInts(try context.input(2))
        let step = try context.constantInts(try context.input(3))
        let output = try context.float32(try context.output(0))
        let rank = input.rank
        guard begin.count == rank, end.count == rank, step.count == rank else {
            throw context.invalid("begin, end and strides need \(rank) values each")
        }
        let inputStrides = Shape.strides(input.shape)
        var start = 0
        var dims: [Int] = [], strides: [Int] = [], shape: [Int] = []
        for d in 0..<rank {
            let size = input.shape[d]
            let s = step[d]
            guard s != 0 else { throw context.invalid("stride of dimension \(d) is 0") }
            let bit: Int32 = 1 << Int32(d)
            func clamp(_ value: Int) -> Int {
                let v = value < 0 ? value + size : value
                return s > 0 ? min(max(v, 0), size) : min(max(v, -1), size - 1)
            }
            var first = options.beginMask & bit != 0 ? (s > 0 ? 0 : size - 1) : clamp(begin[d])
            var stop: Int
            if options.shrinkAxisMask & bit != 0 {
                let b = begin[d] < 0 ? begin[d] + size : begin[d]
                guard b >= 0, b < size else { throw context.invalid("shrunk index \(begin[d]) out of range in dimension \(d)") }
                first = b
                stop = b + 1
            } else if options.offset {
                stop = clamp(first + end[d])
            } else {
                stop = options.endMask & bit != 0 ? (s > 0 ? size : -1) : clamp(end[d])
            }
            let count = options.shrinkAxisMask & bit != 0 ? 1 : (s > 0 ? max(0, (stop - first + s - 1) / s) : max(0, (first - stop - s - 1) / -s))
            guard count > 0 else { throw context.invalid("dimension \(d) of the slice is empty") }
            start += first * inputStrides[d]
            dims.append(count)
            strides.append(s * inputStrides[d])
            if options.shrinkAxisMask & bit == 0 { shape.append(count) }
        }
        guard output.shape == shape || (shape.isEmpty && output.elementCount == 1) else {
            throw context.invalid("output \(output.label) has shape \(output.shape), expected \(shape)")
        }
        return StridedSliceOperation(operatorIndex: context.index, input: input.index, output: output.index,
                                     start: start, dims: dims.isEmpty ? [1] : dims, strides: strides.isEmpty ? [1] : strides)
    }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        let x = try memory.pointer(input) + start, y = try memory.mutablePointer(output)
        let (dims, strides) = (dims, strides)
        return BoundClosure { pool in ck_copy_strided(dims.count, dims, x, strides, y, pool) }
    }
}
