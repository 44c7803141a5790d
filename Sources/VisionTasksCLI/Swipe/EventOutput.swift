import ArgumentParser
import Foundation
import VisionTasks

/// Where `vision-tasks swipe` sends each event: a line on stdout (text or JSON), flushed at
/// once so that a pipe sees events as they happen, and the `--exec` command. Unchecked
/// Sendable: the failure count is under the lock; the rest never changes.
final class EventOutput: @unchecked Sendable {
    let format: SwipeCommand.Format
    let includeInput: Bool
    let exec: String?
    private let file: FileHandle
    private let group = DispatchGroup()
    private let lock = NSLock()
    private var failures = 0

    /// Lines go to the file at `path` (created or truncated), or stdout.
    init(format: SwipeCommand.Format, includeInput: Bool, exec: String?, path: String?) throws {
        if let path {
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                throw ValidationError("cannot write \(path)")
            }
            file = handle
        } else {
            file = FileHandle.standardOutput
        }
        self.format = format
        self.includeInput = includeInput
        self.exec = exec
    }

    /// How many `--exec` commands failed (after `finish()`: all of them).
    var failedCommands: Int { lock.withLock { failures } }

    func emit(_ event: GestureEvent, input: String) {
        let line = format == .jsonl ? Self.jsonLine(event, input: includeInput ? input : nil) : Self.textLine(event, input: includeInput ? input : nil)
        file.write(Data((line + "\n").utf8))
        if let exec { run(exec, for: event, input: input) }
    }

    /// `{"timestampInMilliseconds": 1200, "event": "thumbsUp", "hand": 1, "handedness": "Right"}`,
    /// keys in this order (the exact form), `"input"` last when given.
    static func jsonLine(_ event: GestureEvent, input: String?) -> String {
        var line =
            "{\"timestampInMilliseconds\": \(event.timestampInMilliseconds), \"event\": \"\(event.kind.rawValue)\", \"hand\": \(event.handIdentifier), \"handedness\": \(quoted(event.handedness))"
        if let input { line += ", \"input\": \(quoted(input))" }
        return line + "}"
    }

    /// `1.200 s  thumbsUp  hand 1 (Right)`.
    static func textLine(_ event: GestureEvent, input: String?) -> String {
        let seconds = String(format: "%.3f s", Double(event.timestampInMilliseconds) / 1000)
        return (input.map { "\($0): " } ?? "") + "\(seconds)  \(event.kind.rawValue)  hand \(event.handIdentifier) (\(event.handedness))"
    }

    private static func quoted(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Starts `/bin/sh -c command` with the event in its environment; does not wait for it
    /// (a slow command must not stall the stream). Failures are reported when it ends.
    private func run(_ command: String, for event: GestureEvent, input: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var environment = ProcessInfo.processInfo.environment
        environment["VISION_TASKS_EVENT"] = event.kind.rawValue
        environment["VISION_TASKS_HAND"] = String(event.handIdentifier)
        environment["VISION_TASKS_HANDEDNESS"] = event.handedness
        environment["VISION_TASKS_TIMESTAMP_MS"] = String(event.timestampInMilliseconds)
        environment["VISION_TASKS_INPUT"] = input
        process.environment = environment
        group.enter()
        process.terminationHandler = { [weak self] finished in
            if finished.terminationStatus != 0 {
                self?.lock.withLock { self?.failures += 1 }
                MediaDriver.report(
                    "--exec failed for \(event.kind.rawValue) at \(event.timestampInMilliseconds) ms: exit status \(finished.terminationStatus)")
            }
            self?.group.leave()
        }
        do {
            try process.run()
        } catch {
            lock.withLock { failures += 1 }
            MediaDriver.report("--exec could not start for \(event.kind.rawValue): \(error)")
            group.leave()
        }
    }

    /// Waits for the `--exec` commands still running.
    func finish() {
        group.wait()
        if file !== FileHandle.standardOutput { try? file.close() }
    }
}
