import ArgumentParser
import Foundation
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
final class RecordWriter {
    let format: OutputFormat
    private let handle: FileHandle
    private let closeWhenDone: Bool
    private var pendingJSON: Data?
    private var jsonCount = 0
    private let encoder: JSONEncoder

    init(format: OutputFormat, path: String?) throws {
        self.format = format
        encoder = FrameRecord.makeEncoder()
        if let path, path != "-" {
            guard FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path) else {
                throw ValidationError("cannot write the output file \(path)")
            }
            handle = h
            closeWhenDone = true
        } else {
            handle = FileHandle.standardOutput
            closeWhenDone = false
        }
    }

    func write(_ record: FrameRecord, summary: String) throws {
        switch format {
        case .jsonl:
            var line = try encoder.encode(record)
            line.append(0x0A)
            handle.write(line)
        case .json:
            let object = try encoder.encode(record)
            jsonCount += 1
            if jsonCount == 1 {
                pendingJSON = object
            } else {
                if let first = pendingJSON {
                    handle.write(Data("[\n".utf8) + first)
                    pendingJSON = nil
                }
                handle.write(Data(",\n".utf8) + object)
            }
        case .text:
            var where_ = record.file ?? "-"
            if let frame = record.frame, let t = record.timestampInMilliseconds { where_ += " frame \(frame) @ \(t) ms" }
            handle.write(Data("\(where_): \(summary)\n".utf8))
        }
    }

    func finish() {
        if format == .json {
            if let first = pendingJSON {
                handle.write(first + Data("\n".utf8))
            } else if jsonCount > 1 {
                handle.write(Data("\n]\n".utf8))
            }
        }
        if closeWhenDone { try? handle.close() }
    }
}
