import Foundation

/// Wall time spent in the stages of a vision task (model invocations, image-to-tensor crops),
/// summed over every thread while enabled: the benchmark's live section splits a frame's task
/// time with it. Off by default; when off, timing a stage costs one flag read.
@_spi(Apps) public enum StageStopwatch {
    /// The stages timed.
    public enum Stage: Int, CaseIterable, Sendable {
        /// `Interpreter.invoke()`: the models.
        case models
        /// Crop-rotate-resize of the image into a model's input tensor.
        case imageToTensor
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var enabled = false
    nonisolated(unsafe) private static var seconds = [Double](repeating: 0, count: Stage.allCases.count)

    /// Starts (or stops) timing and sets every total to zero.
    public static func reset(enabled on: Bool) {
        lock.lock()
        enabled = on
        seconds = [Double](repeating: 0, count: Stage.allCases.count)
        lock.unlock()
    }

    /// The seconds summed per stage since the last reset.
    public static var totals: [Stage: Double] {
        lock.lock()
        defer { lock.unlock() }
        return Dictionary(uniqueKeysWithValues: Stage.allCases.map { ($0, seconds[$0.rawValue]) })
    }

    /// Runs `body`, adding its wall time to `stage` when timing is on.
    @inline(__always)
    package static func time<R>(_ stage: Stage, _ body: () throws -> R) rethrows -> R {
        guard enabled else { return try body() }
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            lock.lock()
            seconds[stage.rawValue] += elapsed
            lock.unlock()
        }
        return try body()
    }
}
