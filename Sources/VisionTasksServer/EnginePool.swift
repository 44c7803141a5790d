import Foundation
import VisionTasks

/// Image-mode task instances for HTTP requests, kept between requests so that a request does
/// not pay for building a task: one is borrowed per request and given back; a few idle ones
/// are kept per set of settings, and at most `maxSettings` sets are remembered.
final class EnginePool: @unchecked Sendable {
    private let library: ModelLibrary
    private let lock = NSLock()
    private var idle: [TaskSettings: [TaskEngine]] = [:]
    private let maxIdlePerSettings = 2
    private let maxSettings = 8

    init(library: ModelLibrary) {
        self.library = library
    }

    /// Runs `body` with an idle instance for `settings`, building one when none is idle.
    func withEngine<T>(_ settings: TaskSettings, _ body: (TaskEngine) throws -> T) throws -> T {
        let engine = try lock.withLock { idle[settings]?.popLast() } ?? library.makeEngine(settings, mode: .image)
        defer { giveBack(engine) }
        return try body(engine)
    }

    /// Builds and keeps one instance for `settings` (the server does this at start for the
    /// default settings of every task, so that the first request is fast).
    func warmUp(_ settings: TaskSettings) throws {
        giveBack(try library.makeEngine(settings, mode: .image))
    }

    private func giveBack(_ engine: TaskEngine) {
        lock.withLock {
            if idle[engine.settings] == nil, idle.count >= maxSettings {
                idle.removeAll()
            }
            if idle[engine.settings, default: []].count < maxIdlePerSettings {
                idle[engine.settings, default: []].append(engine)
            }
        }
    }
}
