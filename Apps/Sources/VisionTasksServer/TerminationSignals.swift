import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM taken over from their default actions until `remove()`: each one that
/// arrives is handed to `handler` on a global queue (a `DispatchSourceSignal` per signal, the
/// signal itself ignored). What a signal means is the owner's: `ShutdownSignals` drains the
/// server, the command line's `StopSignals` ends a live source.
package final class TerminationSignals: @unchecked Sendable {
    /// The signals taken over.
    package static let handled: [Int32] = [SIGINT, SIGTERM]
    private let lock = NSLock()
    private var sources: [any DispatchSourceSignal] = []

    /// Takes over SIGINT and SIGTERM; `handler` gets the signal's number.
    package init(handler: @escaping @Sendable (_ signal: Int32) -> Void) {
        for number in Self.handled {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global(qos: .userInitiated))
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// Gives SIGINT and SIGTERM their default actions back.
    package func remove() {
        let removed = lock.withLock { () -> [any DispatchSourceSignal] in
            defer { sources = [] }
            return sources
        }
        for source in removed { source.cancel() }
        for number in Self.handled { signal(number, SIG_DFL) }
    }
}
