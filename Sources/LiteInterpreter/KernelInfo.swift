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
