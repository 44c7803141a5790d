import Foundation
import MediaIO
import VisionTasks

/// Sections "gesture", "hands" and "pose": our time per image or video frame beside MediaPipe's
/// Python Tasks API (`scripts/benchmarks/mediapipe_tasks.py`) on the same files with the same
/// settings, in the same run (MediaPipe first, then ours at each thread count).
///
/// - gesture: `GestureRecognizer` in image mode on the shared images (numHands 2);
/// - hands: `HandLandmarker` in video mode on every frame of the shared videos (numHands 2);
/// - pose: `PoseLandmarker` in image mode on the images and in video mode on the videos.
///
/// Only the task call is timed (decoding is not). Images: `taskRuns` timed calls after 2
/// untimed ones; the figure is the median of the per-image medians. Videos: every frame once;
/// the figure is the median over all frames. MediaPipe runs as it does by default; the notes
/// say how many cores it kept busy. Peak memory: our process during the section (reset at its
/// start), MediaPipe's Python process (OpenCV and NumPy included).
struct TaskBenchmark {
    let options: BenchmarkOptions

    static let numHands = 2
    static let warmup = 2
    /// Video frames skipped before counting allocations (tracking and buffers settle).
    static let steadyStateFrame = 10

    /// What one section runs.
    private struct Job {
        var section: String
        var script: String
        var bundle: URL
        var mediaPipeBundle: URL
        var files: [URL]
        var mediaPipeArguments: [String]
        var countLabel: String
    }

    /// The timings of one file (ours at one thread count, or MediaPipe's).
    private struct FileTiming {
        var file: URL
        var video: Bool
        var times: [Double]
        var found: Int
        var allocations: [AllocationCounter.Snapshot] = []

        var median: Double? { Benchmarks.median(times) }
    }

    func run(section: String) throws -> SectionResult {
        let media = try BenchmarkMedia.files()
        let store = ModelStore()
        let job: Job
        switch section {
        case "gesture":
            let bundle = try installed(.gestureRecognizerBundle, store)
            job = Job(section: section, script: "gesture", bundle: bundle, mediaPipeBundle: bundle, files: media.images,
                      mediaPipeArguments: ["--num-hands", "\(Self.numHands)"], countLabel: "hands")
        case "hands":
            let bundle = try installed(.handLandmarkerBundle, store)
            job = Job(section: section, script: "hands", bundle: bundle, mediaPipeBundle: bundle, files: media.videos,
                      mediaPipeArguments: ["--num-hands", "\(Self.numHands)"], countLabel: "hands")
        default:
            let bundle = try installed(.poseLandmarkerFullBundle, store)
            // MediaPipe refuses the installed bundle (PyPI models without normalisation
            // metadata); it gets the reference bundle of ../shared/models: the same weights with
            // the metadata.
            let reference = try BenchmarkMedia.directory().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("models/pose_landmarker_full.task")
            var arguments = ["--num-poses", "\(options.poseNumPoses)"]
            if options.poseMasks { arguments.append("--masks") }
            job = Job(section: "pose", script: "pose", bundle: bundle, mediaPipeBundle: reference, files: media.images + media.videos,
                      mediaPipeArguments: arguments, countLabel: "poses")
        }
        return try run(job)
    }

    private func installed(_ file: ModelFile, _ store: ModelStore) throws -> URL {
        let url = store.path(for: file)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw BenchmarkOptions.UsageError(description: "\(url.path) is missing: run `vision-tasks models install` first")
        }
        return url
    }

    private func run(_ job: Job) throws -> SectionResult {
        var result = SectionResult()
        // MediaPipe first, all files in one Python process (one model load per file and mode).
        var theirs: [String: FileTiming] = [:]
        var theirPeak: Double?
        var theirVersion: String?
        var cpu = 0.0, wall = 0.0
        if options.compareWithMediaPipe {
            do {
                let lines = try PythonRunner.run(
                    script: "scripts/benchmarks/mediapipe_tasks.py",
                    arguments: [job.script, "--model", job.mediaPipeBundle.path, "--runs", "\(options.taskRuns)",
                                "--warmup", "\(Self.warmup)"] + job.mediaPipeArguments + job.files.map(\.path))
                for line in lines {
                    guard let file = line["file"] as? String else { continue }
                    let url = URL(fileURLWithPath: file).standardizedFileURL
                    theirs[url.path] = FileTiming(
                        file: url, video: (line["mode"] as? String) == "video", times: line["times_ms"] as? [Double] ?? [],
                        found: line[job.countLabel] as? Int ?? 0)
                    if let peak = line["peak_rss_mb"] as? Double { theirPeak = max(theirPeak ?? 0, peak) }
                    cpu += line["cpu_ms"] as? Double ?? 0
                    wall += line["wall_ms"] as? Double ?? 0
                    theirVersion = line["version"] as? String ?? theirVersion
                }
            } catch {
                result.notes.append("\(job.section): MediaPipe not timed: \(error)")
            }
        } else {
            result.notes.append("\(job.section): MediaPipe not timed (--no-mediapipe).")
        }

        ResidentMemory.resetPeak()
        var ours: [Int: [FileTiming]] = [:]
        for threads in options.threadCounts {
            var imageTask: ((MPImage) throws -> Int)?
            for file in job.files {
                if BenchmarkMedia.videoExtensions.contains(file.pathExtension.lowercased()) {
                    ours[threads, default: []].append(try timeVideo(file, job: job, threads: threads))
                } else {
                    if imageTask == nil { imageTask = try makeImageTask(job, threads: threads) }
                    if let imageTask { ours[threads, default: []].append(try timeImage(file, task: imageTask)) }
                }
            }
        }
        let ourPeak = ResidentMemory.peakMegabytes()

        let mediaPipe = "MediaPipe\(theirVersion.map { " \($0)" } ?? "") (default threads)"
        for video in [false, true] {
            let mine = options.threadCounts.map { ($0, (ours[$0] ?? []).filter { $0.video == video }) }
            guard let first = mine.first?.1, !first.isEmpty else { continue }
            let others = first.compactMap { theirs[$0.file.standardizedFileURL.path] }
            let frames = first.reduce(0) { $0 + ($1.video ? $1.times.count : 1) }
            let item = video
                ? "video mode, per frame (\(frames) frames of \(first.count) videos)"
                : "image mode, per image (\(first.count) images)"
            for (threads, timings) in mine {
                result.rows.append(BenchmarkRow(
                    section: job.section, item: item, threads: threads, ours: Self.statistic(timings, video: video),
                    reference: options.compareWithMediaPipe ? mediaPipe : "MediaPipe (not run)",
                    theirs: Self.statistic(others, video: video), oursPeakMegabytes: ourPeak, theirPeakMegabytes: theirPeak))
            }
            if AllocationCounter.isAvailable {
                for (threads, timings) in mine {
                    let calls = timings.flatMap { $0.allocations }
                    let counts = calls.map { Double($0.count) }, kilobytes = calls.map { Double($0.bytes) / 1024 }
                    let format = { (value: Double?) in value.map { String(format: "%.0f", $0) } ?? "n/a" }
                    result.notes.append(
                        "\(job.section), \(video ? "video mode" : "image mode"), \(threads) thread(s): heap allocations per call "
                            + "in steady state: median \(format(median(counts))), max \(format(counts.max())); "
                            + "median \(format(median(kilobytes))) KiB, max \(format(kilobytes.max())) KiB; "
                            + "calls of 64 KiB or more: \(calls.map(\.large).reduce(0, +)) (over \(counts.count) calls)")
                }
            }
            result.details.append(details(job, video: video, ours: mine, theirs: theirs))
        }
        if wall > 0 {
            result.notes.append(
                "\(job.section): MediaPipe kept " + String(format: "%.2f", cpu / wall)
                    + " cores busy on average during its calls (process CPU time / wall time).")
        }
        return result
    }

    /// Images: the median of the per-image medians; videos: the median over all frames.
    private static func statistic(_ timings: [FileTiming], video: Bool) -> Double? {
        video ? median(timings.flatMap(\.times)) : median(timings.compactMap(\.median))
    }

    /// The image-mode task of `job` as a function of an image (returning what it found).
    private func makeImageTask(_ job: Job, threads: Int) throws -> (MPImage) throws -> Int {
        let task = try BenchmarkTask.make(job.section, video: false, bundle: job.bundle, threads: threads,
                                          numPoses: options.poseNumPoses, poseMasks: options.poseMasks)
        return { try task($0, 0) }
    }

    /// The video-mode task of `job` as a function of a frame and its timestamp.
    private func makeVideoTask(_ job: Job, threads: Int) throws -> (MPImage, Int) throws -> Int {
        try BenchmarkTask.make(job.section, video: true, bundle: job.bundle, threads: threads,
                               numPoses: options.poseNumPoses, poseMasks: options.poseMasks)
    }

    /// Image mode: warm-up calls, then `taskRuns` timed calls.
    private func timeImage(_ file: URL, task: (MPImage) throws -> Int) throws -> FileTiming {
        let image = try MPImage(contentsOf: file)
        var found = 0
        for _ in 0..<Self.warmup { found = try task(image) }
        var timing = FileTiming(file: file.standardizedFileURL, video: false, times: [], found: found)
        for _ in 0..<options.taskRuns {
            let before = AllocationCounter.now
            timing.times.append(try milliseconds { found = try task(image) })
            timing.allocations.append(AllocationCounter.now - before)
        }
        timing.found = found
        return timing
    }

    /// Video mode: every frame once, decoded one at a time (not timed).
    private func timeVideo(_ file: URL, job: Job, threads: Int) throws -> FileTiming {
        let task = try makeVideoTask(job, threads: threads)
        let reader = try VideoReader(path: file.path)
        var timing = FileTiming(file: file.standardizedFileURL, video: true, times: [], found: 0)
        var index = 0
        while let frame = try reader.nextFrame() {
            let image = MPImage(pixelBuffer: frame.image)
            var found = 0
            let before = AllocationCounter.now
            timing.times.append(try milliseconds { found = try task(image, frame.timestampInMilliseconds) })
            let allocations = AllocationCounter.now - before
            if index >= Self.steadyStateFrame { timing.allocations.append(allocations) }
            timing.found += found
            index += 1
        }
        return timing
    }

    /// Per-file medians (with --details).
    private func details(_ job: Job, video: Bool, ours: [(Int, [FileTiming])], theirs: [String: FileTiming]) -> String {
        var headers = ["file", video ? "frames" : "calls", "\(job.countLabel) (ours / MP)"]
        headers += ours.map { "ours \($0.0)T (ms)" } + ["MediaPipe (ms)"] + ours.map { "ours \($0.0)T / MP" }
        var table = TablePrinter(headers: headers)
        guard let first = ours.first?.1 else { return "" }
        for (i, timing) in first.enumerated() {
            let mp = theirs[timing.file.path]
            let mine = ours.map { i < $0.1.count ? $0.1[i].median : nil }
            let ratios = mine.map { value -> String in
                guard let value, let other = mp?.median, other > 0 else { return "n/a" }
                return String(format: "%.2f", value / other)
            }
            table.add([timing.file.lastPathComponent, "\(timing.times.count)", "\(timing.found) / \(mp.map { "\($0.found)" } ?? "n/a")"]
                + mine.map(formatMilliseconds) + [formatMilliseconds(mp?.median)] + ratios)
        }
        return "## \(job.section), \(video ? "video" : "image") mode, per file (medians)\n\n" + table.render()
    }
}
