import Dispatch
import Foundation
import LiteInterpreter
import Synchronization

/// Section "scaling": what more threads are worth to each model, measured so that a shared
/// machine's changing load reaches every thread count alike. One interpreter per thread count
/// (the first count is the baseline, 1 by default), taken in turns: in each of `rounds` blocks
/// every interpreter runs its share of the runs, in forward order in even blocks and backward in
/// odd ones, after one untimed invoke (which wakes a pool that went to sleep meanwhile).
///
/// Three speed-ups per thread count: of the medians, of the fastest runs, and the median over
/// blocks of each block's own ratio (the paired one: neighbouring blocks ran under the same
/// load, so it is the steadiest on a busy or virtual machine). Beside each model, the core check:
/// how much more a compute-bound loop gets done on that many threads than on one, measured at
/// the start of every block (the median is shown). Below the thread count, the machine's cores
/// are not free (other load, another guest, or two virtual cores on one physical core's
/// hyperthreads), and no kernel can scale better than that.
struct ScalingBenchmark {
    let options: BenchmarkOptions

    /// Blocks of runs per thread count (fewer when there are fewer runs).
    static let rounds = 20

    func run() throws -> SectionResult {
        var result = SectionResult()
        let counts = options.threadCounts
        guard let baseline = counts.first, counts.count > 1 else {
            result.notes.append("scaling: needs two thread counts or more (--threads 1,2), got \(counts)")
            return result
        }
        let schedule = BlockSchedule(runs: options.runs, maximumRounds: Self.rounds)
        let models = ModelBenchmark(options: options)
        var details = TablePrinter(headers: [
            "model", "threads", "median (ms)", "fastest (ms)", "speed-up: medians", "fastest", "paired blocks", "core check",
        ])
        for file in try options.modelFiles() {
            let interpreters = try counts.map { try models.prepared(file, threads: $0) }
            var times = [[Double]](repeating: [], count: counts.count)
            var blockMedians = [[Double]](repeating: [], count: counts.count)
            var coreChecks = [[Double]](repeating: [], count: counts.count)
            for block in 0..<schedule.rounds {
                // One thread's rate once per block (the baseline count is usually 1 itself).
                let rates = counts.map { CoreCheck.rate(threads: $0) }
                let single = counts.firstIndex(of: 1).map { rates[$0] } ?? CoreCheck.rate(threads: 1)
                for index in counts.indices { coreChecks[index].append(rates[index] / single) }
                let runs = schedule.runs(inBlock: block)
                for index in schedule.order(of: counts.count, inBlock: block) {
                    try interpreters[index].invoke()
                    var timings: [Double] = []
                    if options.paceMilliseconds > 0 {
                        for _ in 0..<runs {
                            usleep(UInt32(options.paceMilliseconds) * 1000)
                            timings.append(try milliseconds { try interpreters[index].invoke() })
                        }
                    } else {
                        try models.time(interpreters[index], runs: runs, into: &timings)
                    }
                    times[index] += timings
                    blockMedians[index].append(median(timings) ?? 0)
                }
            }
            let baseMedian = median(times[0]) ?? 0, baseFastest = times[0].min() ?? 0
            for index in counts.indices {
                let ownMedian = median(times[index]) ?? 0, fastest = times[index].min() ?? 0
                let paired = median(zip(blockMedians[0], blockMedians[index]).map { $0 / max($1, 1e-9) }) ?? 0
                result.rows.append(BenchmarkRow(
                    section: "scaling", item: file.lastPathComponent, threads: counts[index], ours: ownMedian,
                    reference: "ours, \(baseline) thread\(baseline == 1 ? "" : "s")", theirs: baseMedian))
                details.add([
                    file.lastPathComponent, "\(counts[index])", formatMilliseconds(ownMedian), formatMilliseconds(fastest),
                    speedUp(baseMedian, ownMedian), speedUp(baseFastest, fastest), String(format: "%.2fx", paired),
                    String(format: "%.2fx", median(coreChecks[index]) ?? 0),
                ])
            }
        }
        result.notes.append(
            "scaling: \(options.runs) invocations per thread count after \(options.warmup) warm-up ones, in \(schedule.rounds) blocks "
                + "taken in turns"
                + (options.paceMilliseconds > 0 ? ", each invocation \(options.paceMilliseconds) ms after the last (--pace-ms)" : ", back to back")
                + "; the table's ratio is the median time at that thread count over the median at \(baseline). "
                + "The speed-ups, and the core check (a compute-bound loop's work per second on that many threads over one), "
                + "are in the scaling details (--details).")
        result.details.append("## Scaling: speed-up over \(baseline) thread\(baseline == 1 ? "" : "s"), blocks in turns\n\n" + details.render())
        return result
    }

    private func speedUp(_ base: Double, _ value: Double) -> String {
        value > 0 ? String(format: "%.2fx", base / value) : "n/a"
    }
}

/// A compute-bound loop (independent vector multiply-adds in registers, no memory traffic) run
/// on N threads at once: the work per second against one thread is what the machine's cores
/// give right now, the ceiling of any kernel's speed-up.
enum CoreCheck {
    /// Loop iterations per second of `threads` threads running the loop at the same time, summed.
    static func rate(threads: Int) -> Double {
        let iterations = 1_000_000
        let rates = Mutex<Double>(0)
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            let start = DispatchTime.now().uptimeNanoseconds
            let sink = spin(iterations)
            // The result's use keeps the loop from being optimised away.
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 + (sink == 0 ? 1e-12 : 0)
            rates.withLock { $0 += Double(iterations) / max(seconds, 1e-9) }
        }
        return rates.withLock { $0 }
    }

    /// Eight independent chains of 4-float multiply-adds: bound by the vector units' throughput,
    /// which a thread shares only with another thread on the same physical core.
    @inline(never)
    private static func spin(_ iterations: Int) -> Float {
        let m = SIMD4<Float>(repeating: 0.999_9), c = SIMD4<Float>(repeating: 0.000_1)
        var a0 = SIMD4<Float>(repeating: 1), a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3
        var a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7
        for _ in 0..<iterations {
            a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c
            a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c
        }
        let sum = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
        return sum.sum()
    }
}
