import Foundation
import MediaIO
import VisionTasks

/// Sections "gesture" and "hands": our time per image (GestureRecognizer, image mode, on the
/// shared test images) and per video frame (HandLandmarker, video mode, every frame of the
/// shared test videos) beside MediaPipe's Python Tasks API on the same files with the same
/// bundle and settings (numHands 2), timed by `scripts/benchmarks/mediapipe_tasks.py` in the same
/// run, file by file; and the peak resident memory of each process.
///
/// Only the task call is timed (decoding is not). Images: `taskRuns` timed calls after 2
/// untimed ones, median. Videos: every frame once, median over the frames. Ours runs with each
/// of `--threads` (default 1 and 2); MediaPipe's Python API runs as it does by default (its
/// inference used one core here: user time ≈ wall time).
struct HandsBenchmark {
    let options: BenchmarkOptions

    /// The two hand sections, as selected in `options`.
    func run() throws -> String {
        let media = try BenchmarkMedia.files()
        var parts: [String] = []
        if options.runs(section: "gesture") {
            parts.append(
                try section(
                    title: "Gesture recognizer, image mode (numHands 2)", task: "gesture",
                    bundle: .gestureRecognizerBundle, files: media.images))
        }
        if options.runs(section: "hands") {
            parts.append(
                try section(
                    title: "Hand landmarker, video mode, every frame (numHands 2)", task: "hands",
                    bundle: .handLandmarkerBundle, files: media.videos))
        }
        return parts.joined(separator: "\n\n")
    }

    static let numHands = 2
    static let warmup = 2

    private struct Timing {
        var frames: Int
        var medianMilliseconds: Double?
        var meanMilliseconds: Double?
        var peakMegabytes: Double?
        var hands: Int
    }

    private func section(title: String, task: String, bundle: ModelFile, files: [URL]) throws -> String {
        let model = ModelStore().path(for: bundle)
        guard FileManager.default.fileExists(atPath: model.path) else {
            throw BenchmarkOptions.UsageError(
                description: "\(model.path) is missing: run `vision-tasks models install` first")
        }
        var notes: [String] = []
        var theirs: [String: Timing] = [:]
        if options.compareWithMediaPipe {
            do {
                let lines = try PythonRunner.run(
                    script: "scripts/benchmarks/mediapipe_tasks.py",
                    arguments: [
                        task, "--model", model.path, "--num-hands", "\(Self.numHands)", "--runs",
                        "\(options.taskRuns)", "--warmup", "\(Self.warmup)",
                    ] + files.map(\.path))
                for line in lines {
                    guard let file = line["file"] as? String else { continue }
                    theirs[URL(fileURLWithPath: file).standardizedFileURL.path] = Timing(
                        frames: line["frames"] as? Int ?? 0, medianMilliseconds: line["median_ms"] as? Double,
                        meanMilliseconds: line["mean_ms"] as? Double, peakMegabytes: line["peak_rss_mb"] as? Double, hands: line["hands"] as? Int ?? 0)
                }
            } catch {
                notes.append("MediaPipe not timed: \(error)")
            }
        } else {
            notes.append("MediaPipe not timed (--no-mediapipe).")
        }

        ResidentMemory.resetPeak()
        let threadCounts = options.threadCounts
        var headers = ["file", "calls", "hands (ours / MP)"]
        headers += threadCounts.map { "ours \($0)T (ms)" }
        headers += ["MediaPipe (ms)"] + threadCounts.map { "ours \($0)T / MP" } + ["ours peak MB", "MP peak MB"]
        var table = TablePrinter(headers: headers)
        var oursTimings: [Int: [Timing]] = [:], theirTimings: [Timing] = []
        for file in files {
            var row: [Timing] = []
            for threads in threadCounts {
                let timing =
                    task == "gesture"
                    ? try timeImage(file, model: model, threads: threads)
                    : try timeVideo(file, model: model, threads: threads)
                row.append(timing)
                oursTimings[threads, default: []].append(timing)
            }
            let mp = theirs[file.standardizedFileURL.path]
            if let mp { theirTimings.append(mp) }
            let ratios = row.map { ours -> String in
                guard let a = ours.medianMilliseconds, let b = mp?.medianMilliseconds, b > 0 else { return "n/a" }
                return String(format: "%.2f", a / b)
            }
            table.add(
                [file.lastPathComponent, "\(row.first?.frames ?? 0)", "\(row.first?.hands ?? 0) / \(mp.map { "\($0.hands)" } ?? "n/a")"]
                    + row.map { formatMilliseconds($0.medianMilliseconds) } + [formatMilliseconds(mp?.medianMilliseconds)]
                    + ratios + [formatMegabytes(row.compactMap(\.peakMegabytes).max()), formatMegabytes(mp?.peakMegabytes)])
        }
        var lines = [
            "## \(title)", "",
            "model \(model.lastPathComponent); ours with 1 and more threads (nT), MediaPipe's Python Tasks API as it runs by default; "
                + "peak MB = the process's peak resident memory so far (ours: since this section began).", "",
            table.render(), "",
        ]
        for threads in threadCounts {
            let ours = oursTimings[threads] ?? []
            if task == "gesture" {
                lines.append(
                    "per image, median of the per-file medians: ours \(threads)T \(formatMilliseconds(Self.median(ours.compactMap(\.medianMilliseconds)))) ms, MediaPipe \(formatMilliseconds(Self.median(theirTimings.compactMap(\.medianMilliseconds)))) ms")
            } else {
                lines.append(
                    "per frame, mean over all frames: ours \(threads)T \(formatMilliseconds(Self.frameMean(ours))) ms, MediaPipe \(formatMilliseconds(Self.frameMean(theirTimings))) ms")
            }
        }
        return (lines + (notes.isEmpty ? [] : [""] + notes)).joined(separator: "\n")
    }

    /// Image mode: warm-up calls, then `taskRuns` timed calls.
    private func timeImage(_ file: URL, model: URL, threads: Int) throws -> Timing {
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = model.path
        options.numHands = Self.numHands
        options.threadCount = threads
        let recognizer = try GestureRecognizer(options: options)
        let image = try MPImage(contentsOf: file)
        var result = try recognizer.recognize(image: image)
        for _ in 1..<Self.warmup { result = try recognizer.recognize(image: image) }
        var samples: [Double] = []
        for _ in 0..<self.options.taskRuns {
            let start = DispatchTime.now().uptimeNanoseconds
            result = try recognizer.recognize(image: image)
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return Timing(
            frames: samples.count, medianMilliseconds: Self.median(samples), meanMilliseconds: Self.mean(samples),
            peakMegabytes: ResidentMemory.peakMegabytes(), hands: result.landmarks.count)
    }

    /// Video mode: every frame once, decoded one at a time (not timed).
    private func timeVideo(_ file: URL, model: URL, threads: Int) throws -> Timing {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = model.path
        options.numHands = Self.numHands
        options.threadCount = threads
        options.runningMode = .video
        let landmarker = try HandLandmarker(options: options)
        let reader = try VideoReader(path: file.path)
        var samples: [Double] = []
        var hands = 0
        while let frame = try reader.nextFrame() {
            let image = MPImage(pixelBuffer: frame.image)
            let start = DispatchTime.now().uptimeNanoseconds
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: frame.timestampInMilliseconds)
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            hands += result.landmarks.count
        }
        return Timing(
            frames: samples.count, medianMilliseconds: Self.median(samples), meanMilliseconds: Self.mean(samples),
            peakMegabytes: ResidentMemory.peakMegabytes(), hands: hands)
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// The mean per frame over all files: Σ mean × frames / Σ frames.
    private static func frameMean(_ timings: [Timing]) -> Double? {
        let frames = timings.reduce(0) { $0 + ($1.meanMilliseconds == nil ? 0 : $1.frames) }
        guard frames > 0 else { return nil }
        return timings.reduce(0.0) { $0 + ($1.meanMilliseconds ?? 0) * Double($1.frames) } / Double(frames)
    }

    private func formatMegabytes(_ value: Double?) -> String {
        value.map { String(format: "%.0f", $0) } ?? "n/a"
    }
}

/// This process's peak resident memory, resettable on Linux so that each section reports its
/// own peak.
private enum ResidentMemory {
    /// Resets the kernel's peak (VmHWM) to the current resident size (Linux: writing 5 to
    /// /proc/self/clear_refs); elsewhere the peak stays the process's.
    static func resetPeak() {
        #if os(Linux)
            if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
                handle.write(Data("5".utf8))
                try? handle.close()
            }
        #endif
    }

    /// Peak resident memory in MiB (VmHWM on Linux, `ru_maxrss` elsewhere).
    static func peakMegabytes() -> Double? {
        #if os(Linux)
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
            else { return nil }
            return kilobytes / 1024
        #else
            var usage = rusage()
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
            return Double(usage.ru_maxrss) / (1024 * 1024)
        #endif
    }
}
