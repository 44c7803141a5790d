import ArgumentParser
import Foundation
import VisionTasks

/// Where `vision-tasks swipe` sends each event: a line on stdout or in the `-o` file (text or
/// JSON), written at once so that a pipe sees events as they happen, and the `--exec` command.
///
/// The `-o` file is written as every other output of the tool (`OutputFile`): never one of the
/// inputs, opened only once the first input was opened (so a run whose inputs all fail leaves
/// it untouched), written through symlinks, devices and FIFOs, and every write checked, so a
/// full disk or a closed pipe is an error, not a crash or a silently truncated file.
///
/// At most `maxRunningCommands` `--exec` commands run at once; an event that would start one
/// more waits for one of them to end (a command slower than the events otherwise piled up
/// without bound: one process per event). Commands run through `CommandRunner`: no descriptor
/// of ours inherited, stopped after `--exec-timeout`, signalled and reaped when vision-tasks
/// is stopped. Unchecked Sendable: the counters are under the lock; the rest is only touched
/// from the command's thread.
final class EventOutput: @unchecked Sendable {
    /// The most `--exec` commands running at once.
    static let maxRunningCommands = 8

    let format: SwipeCommand.Format
    let includeInput: Bool
    let exec: String?
    private let path: String?
    private let inputs: InputFiles
    private var file: OutputFile?
    /// The `--exec` commands.
    let commands: CommandRunner
    private let slots: DispatchSemaphore
    private let commandLimit: Int
    private let lock = NSLock()
    private var failures = 0
    private var running = 0
    private var mostRunning = 0

    /// Lines go to the file at `path` (`nil` or `-`: stdout). Throws if it is one of `inputs`
    /// or could not be created (checked without creating it).
    init(
        format: SwipeCommand.Format, includeInput: Bool, exec: String?, path: String?, inputs: InputFiles = InputFiles([]),
        maxRunningCommands: Int = EventOutput.maxRunningCommands, execTimeout: Double? = nil
    ) throws {
        if let path, path != "-" {
            try inputs.checkNotAnInput(path)
            try OutputFile.checkWritable(path)
            self.path = path
        } else {
            self.path = nil
        }
        self.inputs = inputs
        self.format = format
        self.includeInput = includeInput
        self.exec = exec
        commandLimit = max(1, maxRunningCommands)
        slots = DispatchSemaphore(value: commandLimit)
        commands = CommandRunner(timeout: execTimeout)
    }

    /// How many `--exec` commands failed (after `finish()`: all of them).
    var failedCommands: Int { lock.withLock { failures } }

    /// The most `--exec` commands that ran at the same time.
    var mostRunningCommands: Int { lock.withLock { mostRunning } }

    /// Opens (creates or truncates) the output, once: the command calls it when an input was
    /// opened, before its first event.
    @discardableResult
    func open() throws -> OutputFile {
        if let file { return file }
        let opened = try path.map { try OutputFile(path: $0, inputs: inputs) } ?? OutputFile.standardOutput()
        file = opened
        return opened
    }

    /// Writes the event's line, then starts the `--exec` command. Throws `OutputError` when the
    /// line cannot be written.
    func emit(_ event: GestureEvent, input: String) throws {
        let line = format == .jsonl ? Self.jsonLine(event, input: includeInput ? input : nil) : Self.textLine(event, input: includeInput ? input : nil)
        try open().write(Data((line + "\n").utf8))
        if let exec { run(exec, for: event, input: input) }
    }

    /// `{"timestampInMilliseconds": 1200, "event": "thumbsUp", "hand": 1, "handedness": "Right"}`,
    /// keys in this order (docs/hands-over-time.md shows this form), `"input"` last when given.
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
    /// (a slow command must not stall the stream) unless `maxRunningCommands` are running.
    /// Failures are reported when it ends.
    private func run(_ command: String, for event: GestureEvent, input: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["VISION_TASKS_EVENT"] = event.kind.rawValue
        environment["VISION_TASKS_HAND"] = String(event.handIdentifier)
        environment["VISION_TASKS_HANDEDNESS"] = event.handedness
        environment["VISION_TASKS_TIMESTAMP_MS"] = String(event.timestampInMilliseconds)
        environment["VISION_TASKS_INPUT"] = input
        if slots.wait(timeout: .now()) == .timedOut {
            MediaDriver.report(
                "--exec: \(commandLimit) commands still running; the event at \(event.timestampInMilliseconds) ms waits for one to end")
            slots.wait()
        }
        lock.withLock {
            running += 1
            mostRunning = max(mostRunning, running)
        }
        let what = "\(event.kind.rawValue) at \(event.timestampInMilliseconds) ms"
        let ended: @Sendable (CommandRunner.Outcome?) -> Void = { [self] outcome in
            lock.withLock { running -= 1 }
            slots.signal()
            let failure: String? =
                switch outcome {
                case .exited(0), .stopped: nil
                case .exited(let status): "exit status \(status)"
                case .signalled(let signal): "ended by signal \(signal)"
                case .timedOut: "ran over --exec-timeout and was stopped"
                case nil: nil
                }
            if let failure {
                lock.withLock { failures += 1 }
                MediaDriver.report("--exec failed for \(what): \(failure)")
            }
        }
        do {
            try commands.start(command, environment: environment) { ended($0) }
        } catch {
            lock.withLock { failures += 1 }
            MediaDriver.report("--exec could not start for \(event.kind.rawValue): \(error)")
            ended(nil)
        }
    }

    /// Waits for the `--exec` commands still running, then closes the output (created empty
    /// when `createIfEmpty` and nothing was written). Throws `OutputError` on a write error.
    func finish(createIfEmpty: Bool) throws {
        commands.waitForAll()
        if file == nil, !createIfEmpty { return }
        try open().close()
    }
}
