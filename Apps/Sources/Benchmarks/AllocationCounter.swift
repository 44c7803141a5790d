import Foundation

/// Heap allocations counted by `scripts/dev/malloc_count.c` when it is preloaded
/// (`scripts/dev/count-allocations` does that), read through the shim's functions found with
/// dlsym. Without the shim, `isAvailable` is false and nothing is counted.
enum AllocationCounter {
    /// Counters at one moment, or their difference over a call.
    struct Snapshot {
        /// Allocation calls.
        var count: UInt64 = 0
        /// Bytes asked for.
        var bytes: UInt64 = 0
        /// Calls of at least 64 KiB (image- or tensor-sized buffers).
        var large: UInt64 = 0

        static func - (after: Snapshot, before: Snapshot) -> Snapshot {
            Snapshot(count: after.count - before.count, bytes: after.bytes - before.bytes, large: after.large - before.large)
        }
    }

    private typealias CountFunction = @convention(c) () -> UInt64

    private static func lookUp(_ name: String) -> CountFunction? {
        #if canImport(Glibc) || canImport(Darwin)
            guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else { return nil }
            return unsafeBitCast(symbol, to: CountFunction.self)
        #else
            return nil
        #endif
    }

    private static let functions: (count: CountFunction, bytes: CountFunction, large: CountFunction)? = {
        guard let count = lookUp("vt_allocation_count"), let bytes = lookUp("vt_allocated_bytes"),
            let large = lookUp("vt_large_allocation_count")
        else { return nil }
        return (count, bytes, large)
    }()

    static var isAvailable: Bool { functions != nil }

    /// The counters now (zeros without the shim).
    static var now: Snapshot {
        guard let functions else { return Snapshot() }
        return Snapshot(count: functions.count(), bytes: functions.bytes(), large: functions.large())
    }
}
