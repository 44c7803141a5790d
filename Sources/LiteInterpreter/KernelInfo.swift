import CKernels

/// Which instruction set the interpreter's C kernels run on, chosen at run time from the CPU.
public enum KernelInstructionSet: String, Sendable, CaseIterable {
    /// Plain C, for any CPU.
    case portable
    /// x86-64 AVX2 with fused multiply-add.
    case avx2FMA = "avx2+fma"
    /// x86-64 AVX-512 (F, VL, BW, DQ) for the convolution kernels, AVX2 with FMA for the rest.
    case avx512 = "avx512"
    /// ARM Advanced SIMD.
    case neon

    /// The level the kernels dispatch to now.
    public static var active: KernelInstructionSet { KernelInstructionSet(ck_active_isa()) }

    /// The best level this CPU supports.
    public static var detected: KernelInstructionSet { KernelInstructionSet(ck_detected_isa()) }

    init(_ isa: ck_isa) {
        switch isa {
        case CK_ISA_AVX2_FMA: self = .avx2FMA
        case CK_ISA_AVX512: self = .avx512
        case CK_ISA_NEON: self = .neon
        default: self = .portable
        }
    }
}

extension KernelInstructionSet {
    /// The values `VISION_TASKS_KERNELS` takes (read by the C dispatch, `dispatch.c`), and the
    /// level each asks for. It can only lower the level: a CPU never runs kernels it lacks.
    package static let environmentNames: [(name: String, level: KernelInstructionSet)] = [
        ("portable", .portable), ("avx2", .avx2FMA), ("avx512", .avx512), ("neon", .neon),
    ]

    /// Why `VISION_TASKS_KERNELS=value` did not take effect (nil when it is unset or did): an
    /// unknown name (`AVX2`, `avx-512`, `garbage`) or a level this CPU does not run (`neon` on
    /// x86-64, `avx512` on an AVX2 CPU) is ignored by the dispatch, and a benchmark or a
    /// comparison run would measure the CPU's level while its user believes otherwise.
    /// `detected` is the level the dispatch settled on (`detected`, already lowered by the
    /// variable when it could be).
    @_spi(Apps) public static func environmentProblem(_ value: String?, detected: KernelInstructionSet) -> String? {
        guard let value else { return nil }
        let names = environmentNames.map(\.name).joined(separator: ", ")
        guard let requested = environmentNames.first(where: { $0.name == value })?.level else {
            return "VISION_TASKS_KERNELS=\(value) is not a kernel level (\(names)); ignored, the kernels run \(detected.rawValue)"
        }
        guard requested != detected else { return nil }
        return "VISION_TASKS_KERNELS=\(value): this CPU does not run the \(requested.rawValue) kernels; ignored, "
            + "the kernels run \(detected.rawValue) (the variable can only lower the level)"
    }
}
