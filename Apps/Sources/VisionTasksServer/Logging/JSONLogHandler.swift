import Foundation
import Logging

/// A swift-log handler that writes one JSON object per line (JSON Lines) to standard error:
/// `time` (ISO 8601, UTC, milliseconds), `level`, `message`, then the metadata, each value as
/// a string: `session` on a live session's lines, `request` (Hummingbird's request id,
/// `hb.request.id`) on an HTTP request's. `vision-tasks serve --log-format json` logs with it.
public struct JSONLogHandler: LogHandler {
    /// The lowest level written.
    public var logLevel: Logger.Level
    /// Metadata on every line of this logger.
    public var metadata: Logger.Metadata = [:]
    private let write: @Sendable (String) -> Void

    /// A handler writing to standard error, from `level` up.
    public init(label: String, level: Logger.Level = .info) {
        self.init(level: level) { line in FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// A handler handing each line (with its line feed) to `write`.
    init(level: Logger.Level, write: @escaping @Sendable (String) -> Void) {
        logLevel = level
        self.write = write
    }

    /// One metadata value of every line of this logger.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the event as one line, its metadata over the logger's.
    public func log(event: LogEvent) {
        write(Self.line(
            time: Date(), level: event.level, message: event.message.description,
            metadata: metadata.merging(event.metadata ?? [:]) { _, new in new }))
    }

    /// The metadata keys renamed in the output.
    static let renamed = ["hb.request.id": "request"]

    /// One line: the object and a line feed. The fixed keys win over metadata of the same name.
    static func line(time: Date, level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var object: [String: String] = [:]
        for (key, value) in metadata { object[renamed[key] ?? key] = "\(value)" }
        object["time"] = time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        object["level"] = level.rawValue
        object["message"] = message
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(object) else { return "{\"message\":\"unencodable log line\"}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
