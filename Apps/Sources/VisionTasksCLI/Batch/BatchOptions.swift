import ArgumentParser
import Foundation

/// The options of batch runs, shared by the task commands: inputs from a list file, one output
/// file per input in a folder, skipping inputs already done, and splitting the inputs over
/// several processes or machines (docs/deploy.md, "Batch runs in shards").
struct BatchOptions: ParsableArguments {
    @Option(name: .customLong("inputs-from"), help: ArgumentHelp(
        "Read more inputs from this file, one path per line (blank lines and # comments skipped; relative paths are relative to the file's folder).",
        valueName: "file"))
    var inputsFrom: String?

    @Option(name: .customLong("output-dir"), help: ArgumentHelp(
        "Write each input's records to their own file in this folder: its path relative to the folder or list it came from, plus .json (images), .jsonl (videos) or .txt; each file appears only complete. With --annotate DIR and --masks DIR, those are named the same way.",
        valueName: "dir"))
    var outputDirectory: String?

    @Flag(help: "With --output-dir: skip inputs whose records file is already there (complete, as files appear only complete), so a failed or killed run is simply run again.")
    var skipExisting = false

    @Option(help: ArgumentHelp(
        "Work on one part of the inputs: sorted by name, those at positions INDEX, INDEX+COUNT, ... (INDEX from 0 to COUNT-1).",
        valueName: "INDEX/COUNT"))
    var shard: String?

    @Option(help: ArgumentHelp(
        "Split the inputs into this many parts and work on the one JOB_COMPLETION_INDEX names (as a Kubernetes Indexed Job sets it); the same as --shard $JOB_COMPLETION_INDEX/COUNT.",
        valueName: "count"))
    var shardCount: Int?

    /// The shard these options ask for in `environment` (`JOB_COMPLETION_INDEX`), nil for all
    /// inputs.
    func resolvedShard(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ShardError) -> Shard? {
        try Shard.resolve(shard: shard, shardCount: shardCount, environment: environment)
    }

    func validate() throws {
        for (flag, value) in [("--inputs-from", inputsFrom), ("--output-dir", outputDirectory)] where value?.isEmpty == true {
            throw ValidationError("\(flag) needs a file or folder name, not an empty string")
        }
        if skipExisting, outputDirectory == nil {
            throw ValidationError("--skip-existing needs --output-dir: it skips inputs whose output file in that folder is complete")
        }
        do {
            _ = try resolvedShard()
        } catch {
            throw ValidationError(String(describing: error))
        }
    }
}
