import Foundation
import VisionTasks

/// Image-mode task instances for HTTP requests, kept between requests so that a request does
/// not pay for building a task (about 135 ms): one is borrowed per request and given back; a
/// few idle ones are kept per set of settings, for at most `maxSettings` sets. When a new set
/// needs room, the set used least recently is dropped; the default settings of every task (made
/// when the server starts) are never dropped, so requests with the defaults stay fast whatever
/// other clients ask for.
final class EnginePool: @unchecked Sendable {
    private let library: ModelLibrary
    private let lock = NSLock()
    private var idle: [TaskSettings: [TaskEngine]] = [:]
    /// When each set of settings was last borrowed or given back (a counter, not a clock).
    private var lastUse: [TaskSettings: UInt64] = [:]
    private var useCounter: UInt64 = 0
    /// Settings whose instances are never dropped.
    private var pinned: Set<TaskSettings> = []
    private let maxIdlePerSettings = 2
    /// The most sets of settings kept, pinned ones included.
    let maxSettings: Int

    init(library: ModelLibrary, maxSettings: Int = 8) {
        self.library = library
        self.maxSettings = max(maxSettings, TaskKind.allCases.count + 1)
    }

    /// Runs `body` with an idle instance for `settings`, building one when none is idle.
    func withEngine<T>(_ settings: TaskSettings, _ body: (TaskEngine) throws -> T) throws -> T {
        let engine = try lock.withLock { () -> TaskEngine? in
            touch(settings)
            return idle[settings]?.popLast()
        } ?? library.makeEngine(settings, mode: .image)
        defer { giveBack(engine) }
        return try body(engine)
    }

    /// Builds and keeps one instance for `settings`, never dropped (the server does this at
    /// start for the default settings of every task, so that the first request is fast).
    func warmUp(_ settings: TaskSettings) throws {
        let engine = try library.makeEngine(settings, mode: .image)
        lock.withLock { _ = pinned.insert(settings) }
        giveBack(engine)
    }

    /// The sets of settings that have idle instances now.
    var keptSettings: Set<TaskSettings> { lock.withLock { Set(idle.keys) } }

    private func giveBack(_ engine: TaskEngine) {
        let settings = engine.settings
        lock.withLock {
            touch(settings)
            if idle[settings] == nil, idle.count >= maxSettings {
                let evictable = idle.keys.filter { !pinned.contains($0) }
                if let oldest = evictable.min(by: { lastUse[$0, default: 0] < lastUse[$1, default: 0] }) {
                    idle[oldest] = nil
                    lastUse[oldest] = nil
                }
            }
            if idle.count < maxSettings || idle[settings] != nil, idle[settings, default: []].count < maxIdlePerSettings {
                idle[settings, default: []].append(engine)
            }
        }
    }

    /// Under the lock.
    private func touch(_ settings: TaskSettings) {
        useCounter += 1
        lastUse[settings] = useCounter
    }
}
