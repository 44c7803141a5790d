import ArgumentParser
import Foundation
@_spi(Apps) import LiteInterpreter

/// `vision-tasks`: hand landmarks, gestures and body pose from images and videos.
@main
struct VisionTasksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vision-tasks",
        abstract: "MediaPipe hand landmarks, gestures and body pose on images and videos.",
        subcommands: [
            MediaCommand.self,
            ModelsCommand.self,
            ModelCommand.self,
            GestureCommandGroup.self,
            HandsCommand.self,
            PoseCommand.self,
            SwipeCommand.self,
            ServeCommand.self,
        ]
    )

    /// Says on stderr when `VISION_TASKS_KERNELS` is set but ignored (a typo, or a level the
    /// CPU lacks): the dispatch ignores it silently, and a run meant to compare kernel levels
    /// measured the CPU's own level without a word. Then runs the command.
    static func main() async {
        let value = ProcessInfo.processInfo.environment["VISION_TASKS_KERNELS"]
        if let problem = KernelInstructionSet.environmentProblem(value, detected: .detected) {
            FileHandle.standardError.write(Data("vision-tasks: warning: \(problem)\n".utf8))
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.starts(with: ["pose", "samples"]) {
            // `pose` takes every positional argument as an input, so ArgumentParser would read
            // `samples` as a file name: this subcommand is dispatched here instead.
            PoseSamplesCommand.main(Array(arguments.dropFirst(2)))
            return
        }
        if arguments.first == "serve" {
            // Its options from VISION_TASKS_* variables too (a flag on the command line wins).
            do {
                let serve = try ServeEnvironment.arguments(Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
                await main(["serve"] + serve)
            } catch {
                ServeCommand.exit(withError: error)
            }
            return
        }
        await main(nil)
    }
}
