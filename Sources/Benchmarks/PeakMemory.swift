import Foundation

/// The process's peak resident memory (`getrusage` `ru_maxrss`).
enum PeakMemory {
    /// Megabytes (MiB) of peak resident memory so far.
    static func residentMegabytes() -> Double {
        var usage = rusage()
        #if os(Linux)
            guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return .nan }
            return Double(usage.ru_maxrss) / 1024  // KiB
        #else
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return .nan }
            return Double(usage.ru_maxrss) / (1024 * 1024)  // bytes
        #endif
    }
}
