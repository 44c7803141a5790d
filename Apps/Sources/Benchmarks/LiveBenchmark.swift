import Foundation
@_spi(Apps) import LiteInterpreter
@_spi(Apps) import MediaIO
@_spi(Apps) import VisionTasks

/// Section "live": a camera frame's whole trip, from JPEG bytes to result, beside MediaPipe's
/// Python Tasks API doing the same with the same bytes (`scripts/benchmarks/mediapipe_live.py`:
/// OpenCV decodes, the task runs).
///
/// The frames are the first `liveFrames` frames of a shared video with hands and a body in every
/// frame, scaled to 640x480 and 1280x720 and JPEG-encoded (quality 90) before timing. Each frame
/// is timed in two stages: decode (JPEG bytes to pixels, wrapped as `MPImage`) and the task call
/// (crop-rotate-resize, the models and the post-processing). Configurations: gesture in video
/// mode (a tracked hand: the palm detector runs only when tracking is lost), gesture in image mode
/// (the palm detector on every frame), hands and pose in video mode.
///
/// First frame: a fresh process (ours: this executable with `--first-frame-child`; MediaPipe's:
/// Python importing mediapipe) from its start to the first result, and from task creation to
/// the first result (decoding included).
struct LiveBenchmark {
    let options: BenchmarkOptions

    static let clip = "video_upperbody_hands_talking.mp4"
    static let sizes = [(width: 640, height: 480), (width: 1280, height: 720)]

    /// One configuration of the table.
    struct Configuration {
        var name: String
        var task: String
        var video: Bool
    }

    static let configurations = [
        Configuration(name: "gesture, tracked hand (video mode)", task: "gesture", video: true),
        Configuration(name: "gesture, palm detector every frame (image mode)", task: "gesture", video: false),
        Configuration(name: "hands (video mode)", task: "hands", video: true),
        Configuration(name: "pose (video mode)", task: "pose", video: true),
    ]

    func run() throws -> SectionResult {
        var result = SectionResult()
        let store = ModelStore()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vision-tasks-live-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = try makeFrames(in: folder)
        var stageNotes: [String] = []

        for configuration in Self.configurations {
            let bundle = try bundle(for: configuration.task, store)
            let mediaPipeBundle = try mediaPipeBundle(for: configuration.task, ours: bundle)
            for size in Self.sizes {
                guard let files = frames["\(size.width)x\(size.height)"] else { continue }
                let bytes = try files.map { try [UInt8](Data(contentsOf: $0)) }
                let item = "live \(size.width)x\(size.height) JPEG -> result: \(configuration.name)"
                var theirs: (decode: [Double], task: [Double])?
                var version: String?
                if options.compareWithMediaPipe {
                    do {
                        let lines = try PythonRunner.run(
                            script: "scripts/benchmarks/mediapipe_live.py",
                            arguments: [configuration.task, "--model", mediaPipeBundle.path, "--mode", configuration.video ? "video" : "image",
                                        "--num-hands", "\(TaskBenchmark.numHands)"] + files.map(\.path))
                        if let line = lines.first {
                            theirs = (line["decode_ms"] as? [Double] ?? [], line["task_ms"] as? [Double] ?? [])
                            version = line["version"] as? String
                        }
                    } catch {
                        result.notes.append("live: MediaPipe not timed: \(error)")
                    }
                }
                let reference = "MediaPipe\(version.map { " \($0)" } ?? "") (default threads)"
                let theirTotal = theirs.map { zip($0.decode, $0.task).map { $0 + $1 } } ?? []
                for threads in options.threadCounts {
                    let ours = try time(configuration, bundle: bundle, frames: bytes, threads: threads)
                    let total = zip(ours.decode, ours.task).map { $0 + $1 }
                    result.rows.append(BenchmarkRow(
                        section: "live", item: item, threads: threads, ours: median(total),
                        reference: options.compareWithMediaPipe ? reference : "MediaPipe (not run)",
                        theirs: median(theirTotal)))
                    let format = { (values: [Double]) in formatMilliseconds(median(values)) }
                    let other = (0..<ours.task.count).map { ours.task[$0] - ours.models[$0] - ours.imageToTensor[$0] }
                    stageNotes.append(
                        "| \(size.width)x\(size.height) | \(configuration.name) | \(threads) | \(format(ours.decode)) | "
                            + "\(format(ours.imageToTensor)) | \(format(ours.models)) | \(format(other)) | \(format(ours.task)) | "
                            + "\(format(total)) | \(theirs.map { format($0.decode) } ?? "n/a") | \(theirs.map { format($0.task) } ?? "n/a") | "
                            + "\(format(theirTotal)) |")
                }
            }
        }
        result.details.append(
            "## live: stages per frame (medians, ms)\n\n"
                + "| frames | configuration | threads | ours: decode | ours: crop-rotate-resize | ours: models | ours: rest of task | ours: task | ours: total | MediaPipe: decode | MediaPipe: task | MediaPipe: total |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|\n" + stageNotes.joined(separator: "\n"))
        result.notes.append(
            "live: the first \(options.liveFrames) frames of \(Self.clip) scaled to each size and JPEG-encoded (quality 90); "
                + "decode = JPEG bytes to RGB pixels (ours: MediaIO/libjpeg; MediaPipe's side: cv2.imdecode + BGR->RGB); "
                + "task = the task call (crop-rotate-resize, models, post-processing); total = decode + task per frame. "
                + "In the stage table the task is split into crop-rotate-resize (image to each model's input tensor), models "
                + "(interpreter invocations) and the rest (detection decoding, tracking, landmark projection, gesture classification "
                + "input, result building), each a median over the frames (so the parts need not add up to the task's median exactly).")
        result.details.append(try firstFrame(frames: frames, store: store))
        return result
    }

    /// The clip's first frames at each size as JPEG files in `folder`, keyed "WxH".
    private func makeFrames(in folder: URL) throws -> [String: [URL]] {
        let reader = try VideoReader(path: try BenchmarkMedia.directory().appendingPathComponent(Self.clip).path)
        var frames: [String: [URL]] = [:]
        var index = 0
        while index < options.liveFrames, let frame = try reader.nextFrame() {
            let rgb = frame.image.convertedToRGB8()
            for size in Self.sizes {
                let scaled = try Self.scaled(rgb, width: size.width, height: size.height)
                let url = folder.appendingPathComponent(String(format: "%dx%d_%04d.jpg", size.width, size.height, index))
                try Data(try ImageEncoder.jpeg(scaled, quality: 90)).write(to: url)
                frames["\(size.width)x\(size.height)", default: []].append(url)
            }
            index += 1
        }
        return frames
    }

    /// A bilinear resize of packed RGB8 (test data preparation only).
    static func scaled(_ image: PixelBuffer, width: Int, height: Int) throws -> PixelBuffer {
        let source = image.packed()
        let sx = Double(source.width) / Double(width), sy = Double(source.height) / Double(height)
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        source.bytes.withUnsafeBufferPointer { src in
            for y in 0..<height {
                let fy = max(0, (Double(y) + 0.5) * sy - 0.5)
                let y0 = min(Int(fy), source.height - 1), y1 = min(y0 + 1, source.height - 1)
                let wy = fy - Double(y0)
                for x in 0..<width {
                    let fx = max(0, (Double(x) + 0.5) * sx - 0.5)
                    let x0 = min(Int(fx), source.width - 1), x1 = min(x0 + 1, source.width - 1)
                    let wx = fx - Double(x0)
                    for c in 0..<3 {
                        func at(_ xx: Int, _ yy: Int) -> Double { Double(src[(yy * source.width + xx) * 3 + c]) }
                        let top = at(x0, y0) * (1 - wx) + at(x1, y0) * wx
                        let bottom = at(x0, y1) * (1 - wx) + at(x1, y1) * wx
                        bytes[(y * width + x) * 3 + c] = UInt8(min(255, max(0, (top * (1 - wy) + bottom * wy).rounded())))
                    }
                }
            }
        }
        return try PixelBuffer(width: width, height: height, format: .rgb8, bytes: bytes)
    }

    /// Our stages for every frame: decode, the task call, and within the task the time in
    /// crop-rotate-resize and in the models (`StageStopwatch`).
    private func time(_ configuration: Configuration, bundle: URL, frames: [[UInt8]], threads: Int) throws
        -> (decode: [Double], task: [Double], models: [Double], imageToTensor: [Double]) {
        let (task, taskThreads) = try BenchmarkTask.makeWithThreads(
            configuration.task, video: configuration.video, bundle: bundle, threads: threads)
        var decode: [Double] = [], taskTimes: [Double] = [], models: [Double] = [], crops: [Double] = []
        defer { StageStopwatch.reset(enabled: false) }
        for (index, bytes) in frames.enumerated() {
            var image: MPImage?
            let decodeTime = try milliseconds {
                image = MPImage(pixelBuffer: try ImageDecoder.decode(bytes, threads: taskThreads).pixels)
            }
            guard let image else { continue }
            StageStopwatch.reset(enabled: true)
            let taskTime = try milliseconds { _ = try task(image, index * 33) }
            let stages = StageStopwatch.totals
            decode.append(decodeTime)
            taskTimes.append(taskTime)
            models.append((stages[.models] ?? 0) * 1000)
            crops.append((stages[.imageToTensor] ?? 0) * 1000)
        }
        return (decode, taskTimes, models, crops)
    }

    private func bundle(for task: String, _ store: ModelStore) throws -> URL {
        let file: ModelFile = task == "gesture" ? .gestureRecognizerBundle : task == "hands" ? .handLandmarkerBundle : .poseLandmarkerFullBundle
        let url = store.path(for: file)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw BenchmarkOptions.UsageError(description: "\(url.path) is missing: run `vision-tasks models install` first")
        }
        return url
    }

    /// MediaPipe refuses the installed pose bundle (no normalisation metadata): it gets the
    /// reference bundle of ../shared/models, the same weights with the metadata.
    private func mediaPipeBundle(for task: String, ours: URL) throws -> URL {
        guard task == "pose" else { return ours }
        return try BenchmarkMedia.directory().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("models/pose_landmarker_full.task")
    }

    // MARK: - First frame

    /// The first frame's latency in fresh processes: ours and MediaPipe's, each task.
    private func firstFrame(frames: [String: [URL]], store: ModelStore) throws -> String {
        guard let file = frames["640x480"]?.first else { return "" }
        var lines = ["## live: first result of a fresh process (640x480 JPEG, ms)", "",
                     "| task | ours: process start -> result | ours: task creation -> result | MediaPipe: process start -> result | MediaPipe: task creation -> result |",
                     "|---|---|---|---|---|"]
        for configuration in Self.configurations where configuration.video {
            let bundle = try bundle(for: configuration.task, store)
            let threads = options.threadCounts.max() ?? 1
            var ours: (Double?, Double?) = (nil, nil)
            let start = Date().timeIntervalSince1970
            if let executable = Bundle.main.executablePath {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = ["--first-frame-child", configuration.task, bundle.path, "\(threads)", file.path]
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                   let epoch = object["first_result_epoch"] as? Double {
                    ours = ((epoch - start) * 1000, object["created_to_result_ms"] as? Double)
                }
            }
            var theirs: (Double?, Double?) = (nil, nil)
            if options.compareWithMediaPipe {
                let spawned = Date().timeIntervalSince1970
                if let line = try? PythonRunner.run(
                    script: "scripts/benchmarks/mediapipe_live.py",
                    arguments: [configuration.task, "--model", try mediaPipeBundle(for: configuration.task, ours: bundle).path,
                                "--mode", "video", "--first-frame", file.path]).first,
                   let epoch = line["first_result_epoch"] as? Double {
                    theirs = ((epoch - spawned) * 1000, line["created_to_result_ms"] as? Double)
                }
            }
            lines.append("| \(configuration.task) (\(threads) threads ours) | \(formatMilliseconds(ours.0)) | \(formatMilliseconds(ours.1)) | "
                + "\(formatMilliseconds(theirs.0)) | \(formatMilliseconds(theirs.1)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The child process of the first-frame measurement: creates the task, decodes the JPEG, runs
    /// it once and prints when (wall clock) the result was there.
    static func firstFrameChild(_ arguments: [String]) throws {
        guard arguments.count == 4, let threads = Int(arguments[2]) else {
            throw BenchmarkOptions.UsageError(description: "--first-frame-child TASK BUNDLE THREADS FRAME.jpg")
        }
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: arguments[3])))
        let created = ContinuousClock.now
        let task = try BenchmarkTask.make(arguments[0], video: true, bundle: URL(fileURLWithPath: arguments[1]), threads: threads)
        let ready = ContinuousClock.now
        _ = try task(MPImage(pixelBuffer: try ImageDecoder.decode(data).pixels), 0)
        let done = ContinuousClock.now
        let epoch = Date().timeIntervalSince1970
        let ms = { (d: Duration) in Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
        print("{\"first_result_epoch\": \(epoch), \"created_to_result_ms\": \(ms(done - created)), \"creation_ms\": \(ms(ready - created))}")
    }
}
