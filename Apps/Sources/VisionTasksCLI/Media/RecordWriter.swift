import ArgumentParser
import Foundation
import TaskRunner
import VisionTasks

/// `--output-format`.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// One JSON object for a single image; a JSON array when there are several records.
    case json
    /// One compact JSON object per line: per image, or per video frame.
    case jsonl
    /// A human summary line per image or frame.
    case text
}

/// Writes records to `--output FILE` or stdout in the chosen format.
///
/// The output file is opened (created or truncated) only when the first record is written,
/// that is after the first input was read, and never when it is one of the inputs; a run whose
/// inputs all fail leaves an existing output untouched. Write errors (a full disk, a closed
/// pipe) are thrown, so the command exits non-zero instead of leaving a truncated file.
final class RecordWriter {
    let format: OutputFormat
    private let path: String?
    private let inputs: InputFiles
    private let atomically: Bool
    private var file: OutputFile?
    private var pendingJSON: Data?
    private var jsonCount = 0
    private var finished = false
    private let encoder: JSONEncoder

    /// `path` nil or `-`: standard output. Throws if the file could not be created (checked
    /// without creating it) or is one of `inputs`. `atomically` (a file only): the records go
    /// to a temporary file renamed onto `path` by `finish`, so that `path` exists only complete
    /// (`--output-dir`); its folder is created when the file is opened.
    init(format: OutputFormat, path: String?, inputs: InputFiles = InputFiles([]), atomically: Bool = false) throws {
        self.format = format
        self.inputs = inputs
        self.atomically = atomically
        encoder = FrameRecord.makeEncoder()
        if let path, path != "-" {
            try inputs.checkNotAnInput(path)
            if !atomically { try OutputFile.checkWritable(path) }
            self.path = path
        } else {
            self.path = nil
        }
    }

    private func output() throws -> OutputFile {
        if let file { return file }
        let opened = try path.map { try OutputFile(path: $0, inputs: inputs, atomically: atomically) } ?? OutputFile.standardOutput()
        file = opened
        return opened
    }

    private func emit(_ data: Data) throws { try output().write(data) }

    func write(_ record: FrameRecord, summary: String) throws {
        switch format {
        case .jsonl:
            var line = try encoder.encode(record)
            line.append(0x0A)
            try emit(line)
        case .json:
            let object = try encoder.encode(record)
            jsonCount += 1
            if jsonCount == 1 {
                pendingJSON = object
                _ = try output()
            } else {
                if let first = pendingJSON {
                    try emit(Data("[\n".utf8) + first)
                    pendingJSON = nil
                }
                try emit(Data(",\n".utf8) + object)
            }
        case .text:
            var where_ = record.file ?? "-"
            if let frame = record.frame, let t = record.timestampInMilliseconds { where_ += " frame \(frame) @ \(t) ms" }
            try emit(Data("\(where_): \(summary)\n".utf8))
        }
    }

    /// In the text format, the closing line of an input (`file: line`); nothing in JSON and
    /// JSONL, whose records already hold what the line sums up.
    func writeClosingLine(_ line: String, file: String) throws {
        guard format == .text else { return }
        try emit(Data("\(file): \(line)\n".utf8))
    }

    /// Ends the JSON array and closes the file. `createIfEmpty`: create the (empty) output even
    /// when no record was written (a successful run over no inputs).
    func finish(createIfEmpty: Bool = false) throws {
        guard !finished else { return }
        finished = true
        if file == nil, !createIfEmpty { return }
        if format == .json {
            if let first = pendingJSON {
                pendingJSON = nil
                try emit(first + Data("\n".utf8))
            } else if jsonCount > 1 {
                try emit(Data("\n]\n".utf8))
            }
        }
        try output().close()
    }
}
