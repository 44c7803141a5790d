import Foundation

/// Counts open live sessions against `ServerConfiguration.maxSessions`.
final class SessionCounter: Sendable {
    let limit: Int
    private let count = LockedCount()

    init(limit: Int) { self.limit = limit }

    /// Takes a place; false when all `limit` places are taken.
    func open() -> Bool { count.change { $0 < limit ? ($0 + 1, true) : ($0, false) } }

    /// Gives a place back.
    func close() { _ = count.change { ($0 - 1, true) } }

    var current: Int { count.change { ($0, $0) } }
}

private final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func change<T>(_ body: (Int) -> (Int, T)) -> T {
        lock.withLock {
            let (new, result) = body(value)
            value = new
            return result
        }
    }
}
