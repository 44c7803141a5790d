import ArgumentParser
import Foundation
import VisionTasks

/// `--model` and `--threads`, which every task command has, and how the model is found.
struct TaskModelOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The .task bundle: a path, or a file name in the model folder ($VISION_TASKS_MODELS or ~/.cache/vision-tasks/models). Default: the command's bundle there, installed on first use.",
        valueName: "model"))
    var model: String?

    @Option(parsing: .unconditional, help: "Threads each model runs on, 1 to 4 per active core; the default is one per active core.")
    var threads: Int = BaseOptions.defaultNumThreads

    func validate() throws {
        try Self.checkThreads(threads)
    }

    /// `--threads` must be between 1 and `BaseOptions.maxNumThreads`.
    static func checkThreads(_ threads: Int) throws {
        guard threads >= 1, threads <= BaseOptions.maxNumThreads else {
            throw ValidationError("--threads must be between 1 and \(BaseOptions.maxNumThreads) (4 per active core), got \(threads)")
        }
    }

    /// The model's path: `--model` (as given, or by name in the model folder), else the
    /// default bundle, installed first if missing.
    func modelPath(default file: ModelFile) throws -> String {
        guard let model else {
            return try ModelProvisioning.ensureInstalled([file]).path(for: file).path
        }
        return try Self.locate(model)
    }

    /// A model file named on the command line: the path as given if it exists, else (for a
    /// bare file name) that name in the model folder. Throws naming every place looked in.
    /// `--model` and `vision-tasks model info|invoke` find files the same way.
    static func locate(_ model: String) throws -> String {
        // Before, "" named the model folder itself ("cannot read model file ...: error 256").
        guard !model.isEmpty else { throw ValidationError("the model file name is empty") }
        if FileManager.default.fileExists(atPath: model) { return model }
        let folder = ModelStore().directory
        guard !model.contains("/") else { return model } // a path: the loader says what is wrong
        let installed = folder.appendingPathComponent(model).path
        if FileManager.default.fileExists(atPath: installed) { return installed }
        throw ValidationError(
            "\(model): no such model file, neither here nor in the model folder \(folder.path) ('vision-tasks models list' shows what is there)")
    }
}
