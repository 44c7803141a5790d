import Foundation
import LiteInterpreter

/// Section "models": our median `invoke()` time per model file beside LiteRT's (XNNPACK) at
/// the same thread count, each timed right after the other so both see the same machine load.
/// Peak memory: our process while the model is loaded and run (reset per model), and LiteRT's
/// Python process (NumPy and the LiteRT runtime included).
struct ModelBenchmark {
    let options: BenchmarkOptions

    func run() throws -> SectionResult {
        let files = try options.modelFiles()
        var result = SectionResult()
        var fastest = TablePrinter(headers: ["model", "threads", "ours fastest (ms)", "LiteRT fastest (ms)", "ratio"])
        var litertAvailable = options.compareWithLiteRT
        for threads in options.threadCounts {
            for file in files {
                var theirs: (median: Double?, fastest: Double?, peak: Double?, version: String?) = (nil, nil, nil, nil)
                if litertAvailable {
                    do {
                        let lines = try PythonRunner.run(
                            script: "scripts/benchmarks/litert_invoke.py",
                            arguments: [file.path, "--threads", "\(threads)", "--runs", "\(options.runs)", "--warmup", "\(options.warmup)"])
                        let line = lines.first
                        theirs = (line?["median_ms"] as? Double, line?["min_ms"] as? Double, line?["peak_rss_mb"] as? Double,
                                  line?["version"] as? String)
                    } catch {
                        result.notes.append("LiteRT not timed: \(error)")
                        litertAvailable = false
                    }
                }
                ResidentMemory.resetPeak()
                let ours = try time(file, threads: threads)
                let reference = "LiteRT\(theirs.version.map { " \($0)" } ?? ""), \(threads) thread\(threads == 1 ? "" : "s")"
                result.rows.append(BenchmarkRow(
                    section: "models", item: file.lastPathComponent, threads: threads, ours: ours.median,
                    reference: litertAvailable ? reference : "LiteRT (not run)", theirs: theirs.median,
                    oursPeakMegabytes: ResidentMemory.peakMegabytes(), theirPeakMegabytes: theirs.peak))
                let ratio = theirs.fastest.map { String(format: "%.2f", ours.fastest / $0) } ?? "n/a"
                fastest.add([file.lastPathComponent, "\(threads)", formatMilliseconds(ours.fastest), formatMilliseconds(theirs.fastest), ratio])
            }
        }
        result.notes.append(
            "models: median of \(options.runs) invocations after \(options.warmup) warm-up ones, on uniform random inputs; "
                + "LiteRT with its default CPU path (XNNPACK) and num_threads as shown, one Python process per model and thread count.")
        result.details.append("## Model invoke, fastest of \(options.runs) runs (less sensitive to other load)\n\n" + fastest.render())
        return result
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
        for _ in 0..<options.runs {
            times.append(try milliseconds { try interpreter.invoke() })
        }
        times.sort()
        return (times[times.count / 2], times[0])
    }
}
