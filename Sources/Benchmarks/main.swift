import LiteInterpreter

// The benchmark table is built in later work; for now report the kernel level it would use.
print("kernels: \(KernelInstructionSet.active.rawValue)")
