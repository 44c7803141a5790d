import Foundation
import MediaIO

/// What happened to a live source's frames, reported on stderr when it ends: frames received,
/// processed (a result printed), dropped (arrived while the task was busy), and the latency
/// from a frame's arrival to its printed result (median and 90th percentile, from a histogram
/// of whole milliseconds, so memory stays bounded however long the stream runs).
final class LiveStatistics: @unchecked Sendable {
    private let lock = NSLock()
    private var received = 0
    private var processed = 0
    private var failed = 0
    /// Latencies in whole milliseconds; the last bucket holds everything from its value on.
    private var histogram = [Int](repeating: 0, count: 10_001)

    func frameReceived() { lock.withLock { received += 1 } }

    /// A result was printed `latencyNanoseconds` after its frame arrived.
    func resultPrinted(latencyNanoseconds: UInt64) {
        let ms = min(histogram.count - 1, Int(latencyNanoseconds / 1_000_000))
        lock.withLock {
            processed += 1
            histogram[ms] += 1
        }
    }

    func frameFailed() { lock.withLock { failed += 1 } }

    var receivedCount: Int { lock.withLock { received } }

    /// The latency below which `fraction` of the results were printed, in ms (nil: none yet).
    func latencyPercentile(_ fraction: Double) -> Int? {
        lock.withLock {
            let total = histogram.reduce(0, +)
            guard total > 0 else { return nil }
            let rank = max(1, Int((Double(total) * fraction).rounded(.up)))
            var seen = 0
            for (ms, count) in histogram.enumerated() {
                seen += count
                if seen >= rank { return ms }
            }
            return histogram.count - 1
        }
    }

    /// `http://...: stopped by SIGINT; 412 frames received, 161 processed, 251 dropped (...)`, one line.
    func summary(source: String, ending: String, dropped: Int, timestamps: VideoTimestampSource, decodeErrors: Int) -> String {
        let (received, processed, failed) = lock.withLock { (self.received, self.processed, self.failed) }
        var line = "\(source): \(ending); \(received) frame\(received == 1 ? "" : "s") received, \(processed) processed, "
            + "\(dropped) dropped (arrived while the task was busy)"
        if failed > 0 { line += ", \(failed) failed" }
        if decodeErrors > 0 { line += ", \(decodeErrors) packet(s) could not be decoded" }
        line += "; timestamps: " + (timestamps == .presentation ? "the stream's presentation times" : "arrival times")
        if let median = latencyPercentile(0.5), let p90 = latencyPercentile(0.9) {
            line += "; latency from arrival to printed result: median \(median) ms, 90th percentile \(p90) ms"
        }
        return line
    }
}
