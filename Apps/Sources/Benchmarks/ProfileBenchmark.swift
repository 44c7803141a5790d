import Foundation
import LiteInterpreter

/// Section "profile": where our `invoke()` time goes, per operator kind, for each model.
struct ProfileBenchmark {
    let options: BenchmarkOptions

    func run() throws -> String {
        var sections: [String] = []
        for threads in options.threadCounts {
            for file in try options.modelFiles() {
                let interpreter = try Interpreter(model: try Model(contentsOf: file), options: .init(threadCount: threads))
                for _ in 0..<options.warmup { try interpreter.invoke() }
                var totals: [String: (count: Int, seconds: Double)] = [:]
                // The fastest run of each operator: robust against other processes on the machine.
                var best: [Double] = []
                var kinds: [String] = []
                var first: [OperatorTiming] = []
                for _ in 0..<options.runs {
                    let timings = try interpreter.invokeProfiled()
                    if best.isEmpty {
                        best = timings.map(\.seconds)
                        kinds = timings.map(\.kind)
                        first = timings
                    }
                    for (i, timing) in timings.enumerated() {
                        let entry = totals[timing.kind] ?? (0, 0)
                        totals[timing.kind] = (entry.count + 1, entry.seconds + timing.seconds)
                        best[i] = min(best[i], timing.seconds)
                    }
                }
                var bestByKind: [String: Double] = [:]
                for (kind, seconds) in zip(kinds, best) { bestByKind[kind, default: 0] += seconds }
                let runs = Double(options.runs)
                let sum = totals.values.reduce(0) { $0 + $1.seconds } / runs
                var table = TablePrinter(headers: ["operator", "count", "mean ms", "share", "best ms"])
                for (kind, entry) in totals.sorted(by: { $0.value.seconds > $1.value.seconds }) {
                    let ms = entry.seconds / runs * 1000
                    table.add([kind, "\(entry.count / options.runs)", formatMilliseconds(ms), String(format: "%.1f%%", ms / 10 / sum),
                               formatMilliseconds((bestByKind[kind] ?? 0) * 1000)])
                }
                let bestTotal = best.reduce(0, +) * 1000
                var text = "## \(file.lastPathComponent), \(threads) thread(s): mean \(formatMilliseconds(sum * 1000)) ms per invoke over \(options.runs) runs; sum of each operator's best: \(formatMilliseconds(bestTotal)) ms\n\n" + table.render()
                if options.profileOperators {
                    // Every operator in execution order with its best time and rate.
                    var detail = TablePrinter(headers: ["#", "operator", "shapes", "best ms", "GMAC/s"])
                    for (timing, seconds) in zip(first, best) {
                        let rate = timing.multiplyAdds > 0 && seconds > 0 ? String(format: "%.1f", Double(timing.multiplyAdds) / seconds / 1e9) : ""
                        detail.add(["\(timing.operatorIndex)", timing.kind, timing.detail, formatMilliseconds(seconds * 1000), rate])
                    }
                    text += "\n\n" + detail.render()
                }
                sections.append(text)
            }
        }
        return sections.joined(separator: "\n\n")
    }
}
