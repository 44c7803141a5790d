import Foundation

/// This process's peak resident memory, resettable on Linux so that each section (or model)
/// reports its own peak.
enum ResidentMemory {
    /// Resets the kernel's peak (VmHWM) to the current resident size (Linux: writing 5 to
    /// /proc/self/clear_refs); elsewhere the peak stays the process's.
    static func resetPeak() {
        #if os(Linux)
            if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
                handle.write(Data("5".utf8))
                try? handle.close()
            }
        #endif
    }

    /// Peak resident memory in MiB (VmHWM on Linux, `ru_maxrss` elsewhere).
    static func peakMegabytes() -> Double? {
        #if os(Linux)
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
            else { return nil }
            return kilobytes / 1024
        #else
            var usage = rusage()
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
            return Double(usage.ru_maxrss) / (1024 * 1024)
        #endif
    }
}
