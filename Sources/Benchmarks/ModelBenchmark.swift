import Foundation
import LiteInterpreter

/// Section "models": our median `invoke()` time per model file beside LiteRT's (XNNPACK) at
/// the same thread count.
struct ModelBenchmark {
    let options: BenchmarkOptions

    func run() throws -> String {
        let files = try options.modelFiles()
        var table = TablePrinter(headers: ["model", "threads", "ours (ms)", "LiteRT (ms)", "ours / LiteRT", "fastest: ours / LiteRT (ms)"])
        var notes: [String] = []
        for threads in options.threadCounts {
            for file in files {
                // LiteRT right before ours, model by model, so both see the same machine load.
                var theirs: Double?
                var theirFastest: Double?
                if options.compareWithLiteRT, notes.isEmpty {
                    do {
                        let lines = try PythonRunner.run(
                            script: "scripts/benchmarks/litert_invoke.py",
                            arguments: [file.path, "--threads", "\(threads)", "--runs", "\(options.runs)", "--warmup", "\(options.warmup)"])
                        theirs = lines.first?["median_ms"] as? Double
                        theirFastest = lines.first?["min_ms"] as? Double
                    } catch {
                        notes.append("LiteRT not timed: \(error)")
                    }
                }
                let (ours, fastest) = try time(file, threads: threads)
                let ratio = theirs.map { String(format: "%.2f", ours / $0) } ?? "n/a"
                table.add([file.lastPathComponent, "\(threads)", formatMilliseconds(ours), formatMilliseconds(theirs), ratio,
                           "\(formatMilliseconds(fastest)) / \(formatMilliseconds(theirFastest))"])
            }
        }
        return (["## Model invoke (median of \(options.runs) runs after \(options.warmup) warm-up)", "", table.render()]
            + (notes.isEmpty ? [] : [""] + notes)).joined(separator: "\n")
    }

    /// Median and fastest milliseconds of `invoke()` on uniform random inputs.
    func time(_ file: URL, threads: Int) throws -> (median: Double, fastest: Double) {
        let model = try Model(contentsOf: file)
        let interpreter = try Interpreter(model: model, options: .init(threadCount: threads))
        var generator = SystemRandomNumberGenerator()
        for index in 0..<interpreter.inputTensorCount {
            try interpreter.withUnsafeMutableInputBuffer(at: index) { buffer in
                for i in buffer.indices { buffer[i] = Float.random(in: 0..<1, using: &generator) }
            }
        }
        for _ in 0..<options.warmup { try interpreter.invoke() }
        var times: [Double] = []
        times.reserveCapacity(options.runs)
        let clock = ContinuousClock()
        for _ in 0..<options.runs {
            let elapsed = try clock.measure { try interpreter.invoke() }
            times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
        times.sort()
        return (times[times.count / 2], times[0])
    }
}
