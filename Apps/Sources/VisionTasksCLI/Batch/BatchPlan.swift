import Foundation

/// The inputs one run works on and where their records go, from `BatchOptions`: the command's
/// inputs and those of `--inputs-from`, this process's shard of them, and with `--output-dir`
/// one records file per input, named after the input's `relativeName`.
struct BatchPlan {
    /// The shard this process works on; nil for every input.
    let shard: Shard?
    /// `--output-dir`: the folder of the per-input records files; nil for one output.
    let outputDirectory: String?
    /// `--skip-existing`.
    let skipExisting: Bool
    /// How many inputs all shards together have.
    let totalCount: Int
    /// The inputs of this process, in the order they are run.
    let inputs: [MediaInput]

    /// The input arguments: the command line's, then the entries of `--inputs-from`, each with
    /// the folder its inputs are named relative to (`InputEnumerator.enumerate`'s `bases`).
    static func arguments(_ commandLine: [String], batch: BatchOptions) throws -> (paths: [String], bases: [String?]) {
        var paths = commandLine
        var bases = [String?](repeating: nil, count: commandLine.count)
        if let list = batch.inputsFrom {
            let entries = try InputList(contentsOf: list).entries
            paths += entries.map(\.path)
            bases += entries.map(\.base)
        }
        return (paths, bases)
    }

    /// Chooses this process's inputs among `found` (every input, as listed). Throws when
    /// `--output-dir` or a shard needs a name for an input that has none (standard input, a
    /// live source) or two inputs would write the same records file.
    init(found: [MediaInput], batch: BatchOptions, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        shard = try batch.resolvedShard(environment: environment)
        outputDirectory = batch.outputDirectory
        skipExisting = batch.skipExisting
        totalCount = found.count
        guard shard != nil || outputDirectory != nil else {
            inputs = found
            return
        }
        let option = outputDirectory != nil ? "--output-dir" : "--shard"
        var byName: [String: String] = [:]
        for input in found {
            guard let name = input.relativeName, input.kind != .live, input.kind != .stream else {
                throw InputError(description: "\(input.path): \(option) names and orders inputs by their file paths; give files or folders, not standard input, URLs or devices")
            }
            if outputDirectory != nil, let other = byName.updateValue(input.path, forKey: name) {
                throw InputError(description: "\(other) and \(input.path) would both write \(name) in --output-dir; give their folder (or list them in --inputs-from with their folders) so that their names differ")
            }
        }
        let name: (MediaInput) -> String = { $0.relativeName ?? $0.path }
        inputs = shard.map { $0.select(found, key: name, tieBreak: \.path) } ?? Shard.sorted(found, key: name, tieBreak: \.path)
    }

    /// The records file of `input` under `--output-dir` in `format`, nil without `--output-dir`.
    func recordsPath(for input: MediaInput, format: OutputFormat) -> String? {
        guard let outputDirectory, let name = input.relativeName else { return nil }
        return (outputDirectory as NSString).appendingPathComponent(name + "." + Self.fileExtension(format))
    }

    /// The extension of a records file in `format`.
    static func fileExtension(_ format: OutputFormat) -> String {
        switch format {
        case .json: return "json"
        case .jsonl: return "jsonl"
        case .text: return "txt"
        }
    }
}
