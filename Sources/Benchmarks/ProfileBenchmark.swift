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
                for _ in 0..<options.runs {
                    for timing in try interpreter.invokeProfiled() {
                        let entry = totals[timing.kind] ?? (0, 0)
                        totals[timing.kind] = (entry.count + 1, entry.seconds + timing.seconds)
                    }
                }
                let runs = Double(options.runs)
                let sum = totals.values.reduce(0) { $0 + $1.seconds } / runs
                var table = TablePrinter(headers: ["operator", "count", "ms per invoke", "share"])
                for (kind, entry) in totals.sorted(by: { $0.value.seconds > $1.value.seconds }) {
                    let ms = entry.seconds / runs * 1000
                    table.add([kind, "\(entry.count / options.runs)", formatMilliseconds(ms), String(format: "%.1f%%", ms / 10 / sum)])
                }
                sections.append("## \(file.lastPathComponent), \(threads) thread(s): \(formatMilliseconds(sum * 1000)) ms (mean of \(options.runs))\n\n" + table.render())
            }
        }
        return sections.joined(separator: "\n\n")
    }
}
