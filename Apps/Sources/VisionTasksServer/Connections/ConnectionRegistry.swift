import Dispatch
import Foundation
import NIOCore

/// Every open TCP connection of a server and whether a request or session is in progress on
/// it: the connection cap and the drain act on it.
///
/// - **Cap** (`ServerLimits.maxConnections`): a connection over the cap closes the connection
///   that has been idle longest (waiting for its first request head, or between keep-alive
///   requests) to make room, so that idle or slow clients cannot keep a health check or a
///   real request out; when every connection is busy, the new one is refused (503).
/// - **Drain**: idle connections are closed at once, a busy HTTP connection after its answer,
///   new connections are refused, and whatever is left is closed at the deadline.
///
/// Touched from every connection's event loop; the lock guards the table, channels are closed
/// outside it.
final class ConnectionRegistry: @unchecked Sendable {
    /// Why the server closed a connection (a metric label: a fixed set).
    enum CloseReason: String, CaseIterable {
        /// Over the cap: the longest-idle connection made room for a new one.
        case evicted
        /// Over the cap with every connection busy, or while draining: answered 503.
        case refused
        /// No complete request head within `ServerTimeouts.headerRead`.
        case headerTimeout
        /// The drain closed it (idle, after its answer, or at the deadline).
        case drained
    }

    private struct Entry {
        let channel: any Channel
        /// Nil while a request or a session is in progress; else since when (uptime ns) it is idle.
        var idleSince: UInt64?
    }

    /// The most open connections (`ServerLimits.maxConnections`).
    let limit: Int
    private let metrics: ServerMetrics
    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var draining = false

    init(limit: Int, metrics: ServerMetrics) {
        self.limit = limit
        self.metrics = metrics
    }

    /// Registers a new connection, idle. False when it must be refused: while draining, or at
    /// the cap with no idle connection to close in its place.
    func open(_ channel: any Channel) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        let (admitted, evicted): (Bool, (any Channel)?) = lock.withLock {
            if draining { return (false, nil) }
            var evicted: (any Channel)?
            if entries.count >= limit {
                guard let oldest = entries.filter({ $0.value.idleSince != nil }).min(by: { $0.value.idleSince ?? 0 < $1.value.idleSince ?? 0 }) else {
                    return (false, nil)
                }
                entries[oldest.key] = nil
                evicted = oldest.value.channel
            }
            entries[ObjectIdentifier(channel)] = Entry(channel: channel, idleSince: now)
            return (true, evicted)
        }
        if let evicted {
            metrics.connectionClosed(.evicted)
            evicted.close(promise: nil)
        }
        if admitted { metrics.connectionOpened() }
        return admitted
    }

    /// The connection closed (by either side).
    func close(_ channel: any Channel) {
        let removed = lock.withLock { entries.removeValue(forKey: ObjectIdentifier(channel)) != nil }
        if removed { metrics.connectionGone() }
    }

    /// A request (its head has arrived) or a live session is in progress.
    func markBusy(_ channel: any Channel) {
        lock.withLock { entries[ObjectIdentifier(channel)]?.idleSince = nil }
    }

    /// The answer was written: the connection waits for another request. False while draining:
    /// the caller closes it instead.
    func markIdle(_ channel: any Channel) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        return lock.withLock {
            entries[ObjectIdentifier(channel)]?.idleSince = now
            return !draining
        }
    }

    /// Whether the server is draining.
    var isDraining: Bool { lock.withLock { draining } }

    /// Open connections.
    var count: Int { lock.withLock { entries.count } }

    /// Starts the drain: refuses new connections from now on and closes the idle ones.
    func beginDrain() {
        let idle: [any Channel] = lock.withLock {
            draining = true
            return entries.values.filter { $0.idleSince != nil }.map(\.channel)
        }
        for channel in idle {
            metrics.connectionClosed(.drained)
            channel.close(promise: nil)
        }
    }

    /// Takes new connections again (a server run again after its shutdown).
    func endDrain() { lock.withLock { draining = false } }

    /// Closes every connection still open, whatever it is doing (the drain's deadline).
    func closeAll() {
        let all = lock.withLock { entries.values.map(\.channel) }
        for channel in all {
            metrics.connectionClosed(.drained)
            channel.close(promise: nil)
        }
    }
}
