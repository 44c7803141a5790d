import Foundation
import LiteInterpreter

// `vision-tasks-bench`: prints our timings beside LiteRT's. Sections are independent: each
// prints its own table.
do {
    let options = try BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
    print("kernels: \(KernelInstructionSet.active.rawValue), cores: \(ProcessInfo.processInfo.activeProcessorCount)\(loadNote())")
    print("")
    if options.profile {
        print(try ProfileBenchmark(options: options).run())
    } else {
        if options.runs(section: "models") { print(try ModelBenchmark(options: options).run()) }
        if options.runs(section: "gesture") || options.runs(section: "hands") {
            print(try HandsBenchmark(options: options).run())
        }
        if options.runs(section: "pose") { print(try PoseBenchmark(options: options).run()) }
    }
} catch let error as BenchmarkOptions.UsageError {
    FileHandle.standardError.write(Data("\(error.description)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("vision-tasks-bench: \(error)\n".utf8))
    exit(1)
}

/// The machine's load when the benchmark starts (timings on a busy machine are slower).
func loadNote() -> String {
    var loads = [Double](repeating: 0, count: 3)
    guard getloadavg(&loads, 3) == 3 else { return "" }
    return String(format: ", load average %.2f %.2f %.2f", loads[0], loads[1], loads[2])
}
