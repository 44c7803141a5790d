import Foundation
import LiteInterpreter

// `vision-tasks-bench`: prints our timings beside LiteRT's. Sections are independent: each
// prints its own table.
do {
    let options = try BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
    print("kernels: \(KernelInstructionSet.active.rawValue)")
    print("")
    if options.profile {
        print(try ProfileBenchmark(options: options).run())
    } else {
        if options.runs(section: "models") { print(try ModelBenchmark(options: options).run()) }
        if options.runs(section: "pose") { print(try PoseBenchmark(options: options).run()) }
    }
} catch let error as BenchmarkOptions.UsageError {
    FileHandle.standardError.write(Data("\(error.description)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("vision-tasks-bench: \(error)\n".utf8))
    exit(1)
}
