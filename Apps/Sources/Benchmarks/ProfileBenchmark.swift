import Foundation
@_spi(Apps) import LiteInterpreter

/// Section "profile": where our `invoke()` time goes, per operator kind, for each model; with
/// `--profile-operators`, every operator. With several thread counts, each model's interpreters
/// (one per count) take turns in blocks of runs, as in the scaling section, so that a change in
/// the machine's load reaches every count alike, and the operator table shows what the extra
/// threads are worth to each operator and how much time they leave on the table.
struct ProfileBenchmark {
    let options: BenchmarkOptions

    /// Blocks of runs per thread count (fewer when there are fewer runs).
    static let rounds = 20

    /// One interpreter's timings: `seconds[run][operator]`.
    private struct Samples {
        var operators: [OperatorTiming] = []
        var seconds: [[Double]] = []
        /// `threadSeconds[run][operator]`: each thread's time at work in the operator's pieces
        /// (OperatorTiming.threadSeconds), in the flow at several threads; else empty.
        var threadSeconds: [[[Double]]] = []

        /// Operator `index`'s times over all runs.
        func column(_ index: Int) -> [Double] { seconds.map { $0[index] } }

        /// The mean time per invoke, in seconds (the operators' times summed).
        var meanInvoke: Double { seconds.reduce(0) { $0 + $1.reduce(0, +) } / Double(max(1, seconds.count)) }
    }

    func run() throws -> String {
        var sections: [String] = []
        let counts = options.threadCounts
        let schedule = BlockSchedule(runs: options.runs, maximumRounds: Self.rounds)
        for file in try options.modelFiles() {
            let model = try Model(contentsOf: file)
            let interpreters = try counts.map { try Interpreter(model: model, options: .init(threadCount: $0)) }
            for interpreter in interpreters {
                for _ in 0..<options.warmup { try interpreter.invoke() }
            }
            var samples = [Samples](repeating: Samples(), count: counts.count)
            for block in 0..<schedule.rounds {
                let runs = schedule.runs(inBlock: block)
                for index in schedule.order(of: counts.count, inBlock: block) {
                    // Untimed: wakes a pool whose workers went to sleep while the others ran.
                    try interpreters[index].invoke()
                    // The pool's busy times would count untimed runs too: only in the flow.
                    interpreters[index].measureBusyTime(options.inPlaceRepeats == 0)
                    for _ in 0..<runs {
                        let timings = try interpreters[index].invokeProfiled(repeatsBeforeTiming: options.inPlaceRepeats)
                        if samples[index].operators.isEmpty { samples[index].operators = timings }
                        samples[index].seconds.append(timings.map(\.seconds))
                        if options.inPlaceRepeats == 0, counts[index] > 1 { samples[index].threadSeconds.append(timings.map(\.threadSeconds)) }
                    }
                    interpreters[index].measureBusyTime(false)
                }
            }
            let oneThreadMean = counts.firstIndex(of: 1).map { samples[$0].meanInvoke }
            for (index, threads) in counts.enumerated() {
                var table = kindTable(file: file, threads: threads, samples: samples[index])
                if let work = threadWork(interpreters[index], samples: samples[index], oneThreadMean: oneThreadMean) {
                    table += "\n\n" + work
                }
                sections.append(table)
            }
            if options.profileOperators { sections.append(operatorTable(file: file, counts: counts, samples: samples)) }
        }
        return sections.joined(separator: "\n\n")
    }

    /// How the operators were timed, for the headings: nothing in the flow, else the untimed runs.
    private var inPlaceNote: String {
        options.inPlaceRepeats == 0 ? "" : ", in place (each operator timed after \(options.inPlaceRepeats) untimed run\(options.inPlaceRepeats == 1 ? "" : "s"))"
    }

    /// Mean and summed best time per operator kind at one thread count.
    private func kindTable(file: URL, threads: Int, samples: Samples) -> String {
        var totals: [String: (count: Int, seconds: Double, best: Double)] = [:]
        for (index, timing) in samples.operators.enumerated() {
            let column = samples.column(index)
            let entry = totals[timing.kind] ?? (0, 0, 0)
            totals[timing.kind] = (entry.count + 1, entry.seconds + column.reduce(0, +), entry.best + (column.min() ?? 0))
        }
        let runs = Double(max(1, samples.seconds.count))
        let mean = totals.values.reduce(0) { $0 + $1.seconds } / runs
        let bestTotal = totals.values.reduce(0) { $0 + $1.best }
        var table = TablePrinter(headers: ["operator", "count", "mean ms", "share", "best ms"])
        for (kind, entry) in totals.sorted(by: { $0.value.seconds > $1.value.seconds }) {
            let ms = entry.seconds / runs * 1000
            table.add([kind, "\(entry.count)", formatMilliseconds(ms), String(format: "%.1f%%", ms / 10 / mean),
                       formatMilliseconds(entry.best * 1000)])
        }
        return "## \(file.lastPathComponent), \(threads) thread(s)\(inPlaceNote): mean \(formatMilliseconds(mean * 1000)) ms per invoke over "
            + "\(samples.seconds.count) runs; sum of each operator's best: \(formatMilliseconds(bestTotal * 1000)) ms\n\n" + table.render()
    }

    /// Whether the threads idle or work slower: per invoke, the time in operators split over
    /// threads, each thread's time at work in them, and (with a 1-thread count) their sum against
    /// what one thread takes for the same operators, estimated as the 1-thread mean less the time
    /// outside split operators. Nil for one thread.
    private func threadWork(_ interpreter: Interpreter, samples: Samples, oneThreadMean: Double?) -> String? {
        let (jobs, threads) = interpreter.busyTime()
        guard threads.count > 1, jobs > 0, !samples.seconds.isEmpty else { return nil }
        let runs = Double(samples.seconds.count), mean = samples.meanInvoke
        let perInvoke = jobs / runs, busy = threads.map { $0 / runs }
        let shares = busy.map { "\(formatMilliseconds($0 * 1000)) ms (" + String(format: "%.0f%%", $0 / perInvoke * 100) + ")" }
        var line = "Threads at work, per invoke: operators split over threads take \(formatMilliseconds(perInvoke * 1000)) ms of "
            + "\(formatMilliseconds(mean * 1000)); in them the caller worked \(shares[0]), the worker\(busy.count > 2 ? "s" : "") "
            + shares.dropFirst().joined(separator: ", ") + " (share of that time)"
        if let oneThreadMean, oneThreadMean - (mean - perInvoke) > 0 {
            let oneThread = oneThreadMean - (mean - perInvoke)
            let together = busy.reduce(0, +)
            line += "; together \(formatMilliseconds(together * 1000)) ms, " + String(format: "%.2fx", together / oneThread)
                + " what one thread takes for them (about \(formatMilliseconds(oneThread * 1000)) ms: the 1-thread mean less the time outside them)"
        }
        return line + "."
    }

    /// Where the threads waited in one operator: its mean time less the calling thread's mean time
    /// in its pieces, and the same for the workers (their mean), in µs; "alone" when no piece
    /// was timed (the operator ran on the calling thread only).
    private func idleCell(_ samples: Samples, operator index: Int) -> String {
        let runs = samples.threadSeconds.compactMap { $0.indices.contains(index) ? $0[index] : nil }
        guard let threads = runs.first?.count, threads > 1, runs.count == samples.seconds.count else { return "n/a" }
        let mean = samples.column(index).reduce(0, +) / Double(runs.count)
        let busy = (0..<threads).map { thread in runs.reduce(0) { $0 + $1[thread] } / Double(runs.count) }
        guard busy.contains(where: { $0 > 0 }) else { return "alone" }
        let workers = busy.dropFirst().reduce(0, +) / Double(threads - 1)
        return String(format: "%.1f / %.1f", (mean - busy[0]) * 1e6, (mean - workers) * 1e6)
    }

    /// Every operator in execution order: its best and median time at each thread count and its
    /// rate at the first; for each further count, the speed-up of the medians and the time lost
    /// against a perfect split (median at n threads minus the first count's median x first / n).
    /// In the flow, also where the threads waited in each operator (idleCell).
    private func operatorTable(file: URL, counts: [Int], samples: [Samples]) -> String {
        var headers = ["#", "operator", "shapes", "GMAC/s (\(counts[0])T)"]
        for threads in counts { headers += ["best ms (\(threads)T)", "median ms (\(threads)T)"] }
        for threads in counts.dropFirst() { headers += ["speed-up (\(threads)T)", "lost µs (\(threads)T)"] }
        let idleColumns = counts.indices.dropFirst().filter { !samples[$0].threadSeconds.isEmpty }
        for column in idleColumns { headers.append("idle µs, caller / worker\(counts[column] > 2 ? "s" : "") (\(counts[column])T)") }
        var table = TablePrinter(headers: headers)
        let base = samples[0]
        var lostTotals = [Double](repeating: 0, count: counts.count)
        for (index, timing) in base.operators.enumerated() {
            let columns = samples.map { $0.column(index) }
            let medians = columns.map { median($0) ?? 0 }
            let bests = columns.map { $0.min() ?? 0 }
            let rate = timing.multiplyAdds > 0 && bests[0] > 0 ? String(format: "%.1f", Double(timing.multiplyAdds) / bests[0] / 1e9) : ""
            var row = ["\(timing.operatorIndex)", timing.kind, timing.detail, rate]
            for column in counts.indices { row += [formatMilliseconds(bests[column] * 1000), formatMilliseconds(medians[column] * 1000)] }
            for column in counts.indices.dropFirst() {
                let ideal = medians[0] * Double(counts[0]) / Double(counts[column])
                let lost = medians[column] - ideal
                lostTotals[column] += lost
                row += [medians[column] > 0 ? String(format: "%.2fx", medians[0] / medians[column]) : "n/a",
                        String(format: "%.1f", lost * 1e6)]
            }
            for column in idleColumns { row.append(idleCell(samples[column], operator: index)) }
            table.add(row)
        }
        let lost = counts.indices.dropFirst().map { "\(counts[$0]) threads \(formatMilliseconds(lostTotals[$0] * 1000)) ms" }
        return "## \(file.lastPathComponent), every operator\(inPlaceNote) (\(samples[0].seconds.count) runs per thread count, in turns); "
            + "time lost against a perfect split, summed: \(lost.isEmpty ? "n/a" : lost.joined(separator: ", "))\n\n" + table.render()
    }
}
