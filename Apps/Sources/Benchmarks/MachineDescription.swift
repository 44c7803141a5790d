import Foundation
import LiteInterpreter

/// The machine a benchmark runs on, for the header of its output: processor, cores, the load
/// when the run starts (timings on a busy machine are slower) and the kernels' instruction set.
struct MachineDescription {
    var processor: String
    var cores: Int
    var loadAverage: [Double]
    var kernels: String
    var date: Date

    static func current() -> MachineDescription {
        var loads = [Double](repeating: 0, count: 3)
        let loadAverage = getloadavg(&loads, 3) == 3 ? loads : []
        return MachineDescription(
            processor: processorName() ?? "unknown processor", cores: ProcessInfo.processInfo.activeProcessorCount,
            loadAverage: loadAverage, kernels: KernelInstructionSet.active.rawValue, date: Date())
    }

    /// The "model name" of /proc/cpuinfo (Linux).
    private static func processorName() -> String? {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
              let colon = line.firstIndex(of: ":") else { return nil }
        return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }

    var lines: [String] {
        let load = loadAverage.isEmpty ? "unknown" : loadAverage.map { String(format: "%.2f", $0) }.joined(separator: " ")
        return [
            "machine: \(processor), \(cores) cores; load average at start \(load); our kernels: \(kernels)",
            "date: \(ISO8601DateFormatter().string(from: date))",
        ]
    }
}
