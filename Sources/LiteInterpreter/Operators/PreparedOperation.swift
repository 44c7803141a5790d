import Foundation

/// An operator after model preparation: validated against its tensors' shapes, with constant
/// work (weight packing) done. Immutable and shared by every `Interpreter` of a `Model`.
protocol PreparedOperation: Sendable {
    /// The operator's index in the model file.
    var operatorIndex: Int { get }
    /// Tensors read at run time (activations and run-time constants).
    var inputs: [Int] { get }
    /// Tensors written.
    var outputs: [Int] { get }
    /// Resolves tensors to memory for one interpreter (pointers, indirection buffers).
    func bind(_ memory: TensorMemory) throws -> BoundOperation
    /// A short description for profiles, e.g. "CONV_2D 3x3/2 (igemm)".
    var summary: String { get }
    /// Shapes for detailed profiles, e.g. "56x56x24 -> 56x56x144" (empty when not useful).
    var detail: String { get }
    /// Multiply-adds per run (0 for operators that do none), for profiles.
    var multiplyAdds: Int { get }
}

extension PreparedOperation {
    var summary: String { String(describing: type(of: self)).replacingOccurrences(of: "Operation", with: "") }
    var detail: String { "" }
    var multiplyAdds: Int { 0 }
}

/// An operator ready to run on one interpreter's memory. Each kind of bound operator is a
/// subclass that overrides `run(pool:)`. A class rather than a protocol: `Interpreter.invoke()`
/// calls the operators through unretained references (`Unmanaged`), which only a class type
/// allows, so that a call costs no reference counting.
class BoundOperation {
    /// Runs the operator; `pool` is the interpreter's `ck_threadpool` (nil = calling thread).
    /// The base class does nothing.
    func run(pool: OpaquePointer?) {}
}

/// Operators that can apply a following PRELU to their output before storing it.
protocol PReLUFusable: PreparedOperation {
    /// The number of output channels (the last dimension), which the slopes must match.
    var preluChannels: Int { get }
    /// A copy of this operator that applies per-channel `slopes` and writes `output`.
    func fusing(preluSlopes slopes: AlignedBuffer, output: Int) -> any PreparedOperation
}

/// Operators that can add a following ADD's other operand to their result before storing it
/// (a residual connection), with the ADD's clamp.
protocol ResidualFusable: PreparedOperation {
    /// The output tensor, which the ADD reads.
    var fusableOutput: Int? { get }
    /// A copy that adds `residual` (same shape as the output) after its own activation, clamps
    /// to `lower...upper` and writes `output` (the ADD's output).
    func fusing(residual: Int, lower: Float, upper: Float, output: Int) -> any PreparedOperation
}

/// Convolutions that can take over a zero PAD of their input's height and width (the padded
/// taps read zeros either way, so the copy is not needed).
protocol PaddingFusable: PreparedOperation {
    /// The input tensor the padding applies to.
    var paddedInput: Int { get }
    /// A copy reading `input` (of the given height and width) with `top` and `left` more rows
    /// and columns of zero padding; bottom and right padding need nothing.
    func fusing(padding input: Int, height: Int, width: Int, top: Int, left: Int) -> any PreparedOperation
}

/// What an operator does to its result before storing it: the fused activation of the
/// operator itself (a clamp, or tanh), an optional residual ADD fused from a following
/// operator (with the ADD's clamp), and an optional PRELU fused from the next operator.
struct OutputActivation: Sendable {
    var lower: Float = -.infinity
    var upper: Float = .infinity
    var tanh = false
    /// A tensor of the output's shape added after the clamp.
    var residual: Int?
    var sumLower: Float = -.infinity
    var sumUpper: Float = .infinity
    var preluSlopes: AlignedBuffer?

    static let none = OutputActivation()

    init() {}

    init(_ fused: FusedActivation, context: OperatorContext) throws {
        switch fused {
        case .tanh:
            tanh = true
        case .signBit:
            throw context.unsupported("fused activation SIGN_BIT")
        default:
            if let range = fused.clampRange {
                lower = range.lower
                upper = range.upper
            }
        }
    }

    /// Whether the result is stored as computed (no clamp, tanh, residual or PRELU).
    var isIdentity: Bool {
        lower == -.infinity && upper == .infinity && !tanh && residual == nil && preluSlopes == nil
    }

    /// Whether a PRELU can be fused after this activation (tanh runs as a separate pass).
    var acceptsPReLU: Bool { !tanh && preluSlopes == nil }

    /// Whether a residual ADD can be fused (before any PRELU).
    var acceptsResidual: Bool { !tanh && preluSlopes == nil && residual == nil }

    var slopesPointer: UnsafePointer<Float>? { preluSlopes.map { UnsafePointer($0.floatPointer) } }
}

/// Tensor memory of one interpreter: activations in its arena, constants in the model.
struct TensorMemory {
    let arena: UnsafeMutableRawPointer
    let plan: MemoryPlan
    let constants: [Int: AlignedBuffer]
    /// Threads of the interpreter's pool (kernels with per-thread scratch memory size it by this).
    var threadCount = 1

    func mutablePointer(_ tensor: Int) throws -> UnsafeMutablePointer<Float> {
        guard let offset = plan.offsets[tensor] else {
            throw InterpreterError.internalInconsistency("tensor \(tensor) has no place in the memory plan")
        }
        return (arena + offset).assumingMemoryBound(to: Float.self)
    }

    func pointer(_ tensor: Int) throws -> UnsafePointer<Float> {
        if let constant = constants[tensor] { return UnsafePointer(constant.floatPointer) }
        return UnsafePointer(try mutablePointer(tensor))
    }
}

/// A kernel's parameters at a fixed address for the bound operator's lifetime: `run` hands the
/// pointer to C directly, with no copy and no exclusivity check (a `var` property passed as
/// `&params` costs a run-time access check per call, which tiny models feel).
final class PinnedParameters<T> {
    let pointer: UnsafeMutablePointer<T>

    init(_ value: T) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
