import Dispatch
import Foundation
import ServiceLifecycle

/// A server's shutdown, in order, when graceful shutdown is triggered (SIGTERM or SIGINT in
/// `VisionServer.run`, or `ServiceGroup.triggerGracefulShutdown()`):
///
/// 1. new connections are answered 503 `shuttingDown` and closed, and so is a new request on
///    a connection already open (the listening socket itself closes when the server stops: a
///    service that closed it earlier would end the Hummingbird server before its shutdown);
/// 2. idle connections are closed; an HTTP request in progress finishes, and its connection is
///    closed after the answer;
/// 3. every live session is closed with WebSocket close code 1001 (going away) and a reason;
/// 4. at `ServerConfiguration.drainDuration`, every connection still open is closed, whatever
///    its client does (a client that does not read, half a request, nothing at all);
/// 5. then the server itself stops.
///
/// It runs as a service before the Hummingbird application in one `ServiceGroup`, which shuts
/// its services down in reverse order: this one first. Cancelled (a second signal), it closes
/// every connection at once.
final class ServerDrain: Service, @unchecked Sendable {
    private let registry: ConnectionRegistry
    private let duration: Duration
    private let logger: (String) -> Void
    private let lock = NSLock()
    private var draining = false
    private var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]

    init(registry: ConnectionRegistry, duration: Duration, log: @escaping (String) -> Void) {
        self.registry = registry
        self.duration = duration
        logger = log
    }

    /// Takes connections again: a server run again after a shutdown starts anew.
    func reset() {
        lock.withLock { draining = false }
        registry.endDrain()
    }

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            registry.closeAll()
            return
        }
        await drain()
    }

    /// Steps 1 to 4.
    func drain() async {
        let started = ContinuousClock.now
        let waiting: [CheckedContinuation<Void, Never>] = lock.withLock {
            draining = true
            defer { waiters = [:] }
            return Array(waiters.values)
        }
        logger("shutting down: \(registry.count) connection(s) open, at most \(duration) to finish")
        registry.beginDrain()
        for waiter in waiting { waiter.resume() }
        while registry.count > 0, ContinuousClock.now - started < duration, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let left = registry.count
        if left > 0 {
            logger("closing \(left) connection(s) still open after \(duration)")
            registry.closeAll()
        }
    }

    /// Returns when the drain starts (at once if it has); returns early when the task is
    /// cancelled (the session ended first).
    func waitForDrain() async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now: Bool = lock.withLock {
                    if draining || Task.isCancelled { return true }
                    waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = lock.withLock { waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }

    /// Whether the drain has started.
    var isDraining: Bool { lock.withLock { draining } }
}
