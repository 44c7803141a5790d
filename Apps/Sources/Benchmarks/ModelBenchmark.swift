import Foundation
import LiteInterpreter

/// Section "models": our median `invoke()` time per model file beside LiteRT's (XNNPACK) at
/// the same thread count. The runs are taken in alternating blocks (ours, LiteRT's, LiteRT's,
/// ours, ...; LiteRT in a Python process that waits for its turn), so a change in machine load
/// during the measurement reaches both sides alike; medians and fastest runs are over all blocks.
/// Peak memory: our process while the model is loaded and run (reset per model), and LiteRT's
/// Python process (NumPy and the LiteRT runtime included).
struct ModelBenchmark {
    let options: BenchmarkOptions

    /// Blocks of runs per side (fewer when there are fewer runs).
    static let rounds = 10

    func run() throws -> SectionResult {
        let files = try options.modelFiles()
        var result = SectionResult()
        var fastest = TablePrinter(headers: ["model", "threads", "ours fastest (ms)", "LiteRT fastest (ms)", "ratio"])
        var litertAvailable = options.compareWithLiteRT
        let schedule = BlockSchedule(runs: options.runs, maximumRounds: Self.rounds)
        for threads in options.threadCounts {
            for file in files {
                var session: PythonRunner.Session?
                if litertAvailable {
                    do {
                        let started = try PythonRunner.Session(
                            script: "scripts/benchmarks/litert_invoke.py",
                            arguments: [file.path, "--threads", "\(threads)", "--runs", "\(options.runs)", "--warmup", "\(options.warmup)",
                                        "--rounds", "\(schedule.rounds)"])
                        session = started
                        _ = try started.nextObject() // ready: loaded and warmed up
                    } catch {
                        session?.finish()
                        session = nil
                        result.notes.append("LiteRT not timed: \(error)")
                        litertAvailable = false
                    }
                }
                ResidentMemory.resetPeak()
                let interpreter = try prepared(file, threads: threads)
                var ours: [Double] = [], theirs: [Double] = []
                ours.reserveCapacity(options.runs)
                for block in 0..<schedule.rounds {
                    let runs = schedule.runs(inBlock: block)
                    let oursFirst = schedule.order(of: 2, inBlock: block)[0] == 0
                    if oursFirst { try time(interpreter, runs: runs, into: &ours) }
                    if let running = session {
                        do {
                            try running.send("go")
                            let line = try running.nextObject()
                            theirs += (line["times_ms"] as? [Double]) ?? []
                        } catch {
                            running.finish()
                            session = nil
                            theirs = []
                            result.notes.append("LiteRT not timed: \(error)")
                            litertAvailable = false
                        }
                    }
                    if !oursFirst { try time(interpreter, runs: runs, into: &ours) }
                }
                var summary: [String: Any] = [:]
                if let running = session {
                    summary = (try? running.nextObject()) ?? [:]
                    running.finish()
                }
                let oursPeak = ResidentMemory.peakMegabytes()
                let version = summary["version"] as? String
                let reference = "LiteRT\(version.map { " \($0)" } ?? ""), \(threads) thread\(threads == 1 ? "" : "s")"
                let timed = session != nil && !theirs.isEmpty
                result.rows.append(BenchmarkRow(
                    section: "models", item: file.lastPathComponent, threads: threads, ours: median(ours) ?? 0,
                    reference: timed ? reference : "LiteRT (not run)", theirs: timed ? median(theirs) : nil,
                    oursPeakMegabytes: oursPeak, theirPeakMegabytes: timed ? summary["peak_rss_mb"] as? Double : nil))
                let oursFastest = ours.min() ?? 0, theirsFastest = timed ? theirs.min() : nil
                let ratio = theirsFastest.map { String(format: "%.2f", oursFastest / $0) } ?? "n/a"
                fastest.add([file.lastPathComponent, "\(threads)", formatMilliseconds(oursFastest), formatMilliseconds(theirsFastest), ratio])
            }
        }
        result.notes.append(
            "models: median of \(options.runs) invocations after \(options.warmup) warm-up ones, on uniform random inputs, "
                + (options.compareWithLiteRT ? "taken in \(schedule.rounds) blocks alternating with LiteRT's; " : "")
                + "LiteRT with its default CPU path (XNNPACK) and num_threads as shown, one Python process per model and thread count.")
        result.details.append("## Model invoke, fastest of \(options.runs) runs (less sensitive to other load)\n\n" + fastest.render())
        return result
    }

    /// An interpreter for `file` with uniform random inputs, warmed up.
    func prepared(_ file: URL, threads: Int) throws -> Interpreter {
        let model = try Model(contentsOf: file)
        let interpreter = try Interpreter(model: model, options: .init(threadCount: threads))
        var generator = SystemRandomNumberGenerator()
        for index in 0..<interpreter.inputTensorCount {
            try interpreter.withUnsafeMutableInputBuffer(at: index) { buffer in
                for i in buffer.indices { buffer[i] = Float.random(in: 0..<1, using: &generator) }
            }
        }
        for _ in 0..<options.warmup { try interpreter.invoke() }
        return interpreter
    }

    /// Appends the milliseconds of `runs` calls of `invoke()` to `times`.
    func time(_ interpreter: Interpreter, runs: Int, into times: inout [Double]) throws {
        for _ in 0..<runs {
            times.append(try milliseconds { try interpreter.invoke() })
        }
    }
}
