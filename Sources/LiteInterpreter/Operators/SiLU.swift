import CKernels

/// SiLU, y * logistic(y), with an optional per-channel scale and shift first (y = x * scale +
/// shift): made by the graph builder from a LOGISTIC and the MUL of its input by its output,
/// together with a MUL and an ADD by per-channel constants before them (a batch normalisation),
/// so four element-wise passes become one. Rounds exactly as the separate operators do.
struct SiLUOperation: PreparedOperation {
    let operatorIndex: Int
    let input: Int
    /// Constant tensors of `channels` values, or nil.
    let scale: Int?, shift: Int?
    let output: Int
    let count: Int, channels: Int

    var inputs: [Int] { [input] + [scale, shift].compactMap { $0 } }
    var outputs: [Int] { [output] }
    var summary: String { (scale == nil ? "" : "MUL+") + (shift == nil ? "" : "ADD+") + "LOGISTIC+MUL" }

    func bind(_ memory: TensorMemory) throws -> BoundOperation {
        BoundSiLU(input: try memory.pointer(input), scale: try scale.map { try memory.pointer($0) },
                  shift: try shift.map { try memory.pointer($0) }, output: try memory.mutablePointer(output),
                  count: count, channels: channels)
    }
}

final class BoundSiLU: BoundOperation {
    let input: UnsafePointer<Float>
    let scale: UnsafePointer<Float>?, shift: UnsafePointer<Float>?
    let output: UnsafeMutablePointer<Float>
    let count: Int, channels: Int

    init(input: UnsafePointer<Float>, scale: UnsafePointer<Float>?, shift: UnsafePointer<Float>?,
         output: UnsafeMutablePointer<Float>, count: Int, channels: Int) {
        self.input = input
        self.scale = scale
        self.shift = shift
        self.output = output
        self.count = count
        self.channels = channels
    }

    override func run(pool: OpaquePointer?) { ck_silu(input, scale, shift, output, count, channels) }
}
