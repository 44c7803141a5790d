import Foundation

/// Heap allocations counted by `scripts/dev/malloc_count.c` when it is preloaded
/// (`scripts/dev/count-allocations` does that): the shim's `vt_allocation_count()`, found with
/// dlsym. Without the shim, `isAvailable` is false and nothing is counted.
enum AllocationCounter {
    private typealias CountFunction = @convention(c) () -> UInt64

    private static let function: CountFunction? = {
        #if canImport(Glibc) || canImport(Darwin)
            guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "vt_allocation_count") else { return nil }
            return unsafeBitCast(symbol, to: CountFunction.self)
        #else
            return nil
        #endif
    }()

    static var isAvailable: Bool { function != nil }

    /// Allocations so far (0 without the shim).
    static var count: UInt64 { function?() ?? 0 }
}
