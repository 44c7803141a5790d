import Dispatch
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGTERM and SIGINT while `VisionServer.run` serves: the first starts the drain, every later
/// one (a second Ctrl-C, a supervisor that insists) closes every connection at once. Installed
/// with `signal(SIG_IGN)` and a `DispatchSourceSignal` per signal; `remove()` gives the
/// signals their default actions back.
final class ShutdownSignals: @unchecked Sendable {
    private static let handled: [Int32] = [SIGTERM, SIGINT]
    private let lock = NSLock()
    private var sources: [DispatchSourceSignal] = []
    private var received = 0

    /// Calls `action(false)` on the first signal and `action(true)` on each later one.
    static func install(logger: Logger, action: @escaping @Sendable (_ again: Bool) -> Void) -> ShutdownSignals {
        let signals = ShutdownSignals()
        for number in handled {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global(qos: .userInitiated))
            source.setEventHandler { [weak signals] in
                guard let signals else { return }
                let count = signals.lock.withLock {
                    signals.received += 1
                    return signals.received
                }
                let name = number == SIGTERM ? "SIGTERM" : "SIGINT"
                logger.info("\(name)\(count > 1 ? " again: closing every connection now" : ": shutting down")")
                action(count > 1)
            }
            source.resume()
            signals.sources.append(source)
        }
        return signals
    }

    /// Gives SIGTERM and SIGINT their default actions back.
    func remove() {
        let removed = lock.withLock { () -> [DispatchSourceSignal] in
            defer { sources = [] }
            return sources
        }
        for source in removed { source.cancel() }
        for number in Self.handled { signal(number, SIG_DFL) }
    }
}
