import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM during `vision-tasks swipe --exec` on files (live sources have
/// `StopSignals`): the running commands get the same signal (they run in process groups of
/// their own, which a terminal's Ctrl-C does not reach), are reaped (SIGKILL after
/// `CommandRunner.killGrace`), and then vision-tasks ends by the signal, as it would have
/// without a handler.
final class CommandSignals: @unchecked Sendable {
    private static let handled: [Int32] = [SIGINT, SIGTERM]
    private var sources: [any DispatchSourceSignal] = []

    static func install(_ commands: CommandRunner) -> CommandSignals {
        let signals = CommandSignals()
        for number in handled {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global(qos: .userInitiated))
            source.setEventHandler {
                commands.terminateAll(with: number)
                _ = commands.waitForAll(seconds: CommandRunner.killGrace + 1)
                signal(number, SIG_DFL)
                // To the process, not this thread: dispatch's threads block signals.
                kill(getpid(), number)
            }
            source.resume()
            signals.sources.append(source)
        }
        return signals
    }

    /// Gives SIGINT and SIGTERM their default actions back.
    func remove() {
        for source in sources { source.cancel() }
        sources = []
        for number in Self.handled { signal(number, SIG_DFL) }
    }
}
