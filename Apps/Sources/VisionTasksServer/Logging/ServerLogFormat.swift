import Logging

/// How `vision-tasks serve` writes its logs.
public enum ServerLogFormat: String, Sendable, CaseIterable {
    /// swift-log's default lines on standard output (`2026-01-01T12:00:00+0000 info vision-tasks.serve: ...`).
    case text
    /// JSON Lines on standard error (`JSONLogHandler`), for a log collector.
    case json

    /// A logger in this format from `level` up.
    public func logger(label: String = "vision-tasks.serve", level: Logger.Level = .info) -> Logger {
        var logger: Logger
        switch self {
        case .text: logger = Logger(label: label)
        case .json: logger = Logger(label: label) { JSONLogHandler(label: $0, level: level) }
        }
        logger.logLevel = level
        return logger
    }
}
