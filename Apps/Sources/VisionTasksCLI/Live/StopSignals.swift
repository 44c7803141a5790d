import Foundation
import MediaIO
import VisionTasksServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C (SIGINT) and SIGTERM during a run with live sources: the first signal ends the live
/// source being read (its `InterruptToken`, so a blocked FFmpeg read returns at once) and the
/// inputs after it; the command then finishes normally: results flushed, the annotated video
/// completed, the dropped-frame count printed, exit status 0. A second signal quits at once
/// (status 128 + signal), for a finish that would take too long.
///
/// The signals are taken over by the server's `TerminationSignals` and given back by `remove()`.
final class StopSignals: @unchecked Sendable {
    private let lock = NSLock()
    private var signals: TerminationSignals?
    private var received: Int32?
    private var current: InterruptToken?
    private var handlers: [@Sendable (_ signal: Int32, _ again: Bool) -> Void] = []

    /// Takes over SIGINT and SIGTERM until `remove()`.
    static func install() -> StopSignals {
        let stop = StopSignals()
        let signals = TerminationSignals { [weak stop] number in stop?.receive(number) }
        stop.lock.withLock { stop.signals = signals }
        return stop
    }

    /// Also calls `handler` on each signal (`again`: a later one, just before quitting), e.g.
    /// to stop the `--exec` commands.
    func onSignal(_ handler: @escaping @Sendable (_ signal: Int32, _ again: Bool) -> Void) {
        lock.withLock { handlers.append(handler) }
    }

    /// The signal that asked the run to stop, if one did.
    var signalReceived: Int32? { lock.withLock { received } }

    /// The signal's name for messages (`SIGINT`, `SIGTERM`).
    static func name(_ number: Int32) -> String { number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "signal \(number)" }

    /// A token for the next live source, already interrupted when a signal came before it.
    func makeToken() -> InterruptToken {
        let token = InterruptToken()
        lock.withLock {
            if received != nil { token.interrupt() }
            current = token
        }
        return token
    }

    private func receive(_ number: Int32) {
        let (first, token, handlers) = lock.withLock { () -> (Bool, InterruptToken?, [@Sendable (Int32, Bool) -> Void]) in
            let first = received == nil
            if first { received = number }
            return (first, current, self.handlers)
        }
        guard first else {
            FileHandle.standardError.write(Data("vision-tasks: \(Self.name(number)) again: quitting at once\n".utf8))
            for handler in handlers { handler(number, true) }
            _exit(128 + number)
        }
        for handler in handlers { handler(number, false) }
        FileHandle.standardError.write(Data(
            "vision-tasks: \(Self.name(number)): stopping the live source and finishing the outputs (again to quit at once)\n".utf8))
        token?.interrupt()
    }

    /// Gives SIGINT and SIGTERM their default actions back.
    func remove() {
        lock.withLock { signals }?.remove()
    }
}
