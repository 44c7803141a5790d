import Foundation
import LiteInterpreter

// `vision-tasks-bench`: one table of our timings beside LiteRT's (models) and MediaPipe's
// (tasks), measured in this run; or, with --profile, where our time goes per operator.
do {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "--first-frame-child" {
        try LiveBenchmark.firstFrameChild(Array(arguments.dropFirst()))
        exit(0)
    }
    let options = try BenchmarkOptions(arguments: arguments)
    print(MachineDescription.current().lines.joined(separator: "\n"))
    print("")
    if options.profile {
        print(try ProfileBenchmark(options: options).run())
    } else {
        var sections: [SectionResult] = []
        if options.runs(section: "models") { sections.append(try ModelBenchmark(options: options).run()) }
        if options.runs(section: "scaling") { sections.append(try ScalingBenchmark(options: options).run()) }
        for section in ["gesture", "hands", "pose"] where options.runs(section: section) {
            sections.append(try TaskBenchmark(options: options).run(section: section))
        }
        if options.runs(section: "live") { sections.append(try LiveBenchmark(options: options).run()) }
        if options.runs(section: "training") { sections.append(try TrainingBenchmark(options: options).run()) }
        if options.runs(section: "classification") {
            sections.append(try PoseClassificationBenchmark(options: options).run())
        }
        print(BenchmarkRow.table(sections.flatMap(\.rows)))
        let notes = sections.flatMap(\.notes)
        if !notes.isEmpty { print("\n" + notes.map { "- \($0)" }.joined(separator: "\n")) }
        if options.details {
            for detail in sections.flatMap(\.details) where !detail.isEmpty { print("\n" + detail) }
        }
    }
} catch let error as BenchmarkOptions.UsageError {
    FileHandle.standardError.write(Data("\(error.description)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("vision-tasks-bench: \(error)\n".utf8))
    exit(1)
}
