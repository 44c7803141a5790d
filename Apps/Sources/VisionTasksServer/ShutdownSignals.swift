import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGTERM and SIGINT while `VisionServer.run` serves: the first starts the drain, every later
/// one (a second Ctrl-C, a supervisor that insists) closes every connection at once. `remove()`
/// gives the signals their default actions back (`TerminationSignals`).
final class ShutdownSignals: @unchecked Sendable {
    private let lock = NSLock()
    private var received = 0
    private var signals: TerminationSignals?

    /// Calls `action(false)` on the first signal and `action(true)` on each later one.
    static func install(logger: Logger, action: @escaping @Sendable (_ again: Bool) -> Void) -> ShutdownSignals {
        let shutdown = ShutdownSignals()
        let signals = TerminationSignals { [weak shutdown] number in
            guard let shutdown else { return }
            let count = shutdown.lock.withLock {
                shutdown.received += 1
                return shutdown.received
            }
            let name = number == SIGTERM ? "SIGTERM" : "SIGINT"
            logger.info("\(name)\(count > 1 ? " again: closing every connection now" : ": shutting down")")
            action(count > 1)
        }
        shutdown.lock.withLock { shutdown.signals = signals }
        return shutdown
    }

    /// Gives SIGTERM and SIGINT their default actions back.
    func remove() {
        lock.withLock { signals }?.remove()
    }
}
