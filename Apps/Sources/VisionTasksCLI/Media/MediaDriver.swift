import Foundation
import MediaIO
import TaskRunner
@_spi(Apps) import VisionTasks

/// Runs a `FrameProcessor` over the inputs of a command: enumerates and decodes them, feeds the
/// task, writes records, annotations and masks, shows progress, and reports bad inputs on
/// stderr (skipping them). Returns whether every input succeeded.
struct MediaDriver {
    let options: MediaOptions

    /// Runs `processor` on every input; false if any input (or argument) failed.
    func run<P: FrameProcessor>(_ processor: inout P) throws -> Bool {
        let rawSpec = try options.raw.map { try RawFrameSpec(parsing: $0) }
        let arguments = try BatchPlan.arguments(options.inputs, batch: options.batch)
        let found = InputEnumerator.enumerate(arguments.paths, raw: rawSpec != nil, sources: options.live, bases: arguments.bases)
        var ok = found.problems.isEmpty
        for problem in found.problems { Self.report(problem) }
        for note in found.notes { Self.report(note) }
        let plan = try BatchPlan(found: found.inputs, batch: options.batch)
        let inputs = plan.inputs
        if let shard = plan.shard {
            Self.report(inputs.isEmpty
                ? "shard \(shard) has no inputs (\(plan.totalCount) in all): nothing to do"
                : "shard \(shard): \(inputs.count) of \(plan.totalCount) inputs")
        }
        let single = inputs.count == 1 && inputs.first?.kind == .image
        let format = options.outputFormat ?? (single ? .json : .jsonl)
        // Every input found, of every shard: no output may overwrite any of them.
        let inputFiles = InputFiles(found.inputs)
        let writer = try RecordWriter(format: format, path: options.output, inputs: inputFiles)
        let progress = ProgressReporter(enabled: !options.noProgress, totalFiles: inputs.count)
        defer { progress.finish() }
        let annotateDirectory = plan.outputDirectory != nil || Self.isDirectoryTarget(options.annotate, inputCount: inputs.count)
        if let annotate = options.annotate, !annotateDirectory {
            try inputFiles.checkNotAnInput(annotate)
            if let output = options.output, Self.sameFile(output, annotate) {
                throw OutputError(description: "-o and --annotate name the same file \(annotate); give two files")
            }
            if let first = inputs.first { try Self.checkAnnotationExtension(annotate, video: first.kind != .image) }
            try OutputFile.checkWritable(annotate)
        }
        if let masks = options.masks { try Self.createDirectory(masks, option: "--masks") }
        if annotateDirectory, let annotate = options.annotate { try Self.createDirectory(annotate, option: "--annotate") }
        if let directory = plan.outputDirectory { try Self.createDirectory(directory, option: "--output-dir") }

        // Live sources end on Ctrl-C or SIGTERM with every output finished (StopSignals).
        let stop = inputs.contains { $0.kind == .live } ? StopSignals.install() : nil
        defer { stop?.remove() }
        // Under --output-dir each input's outputs are named after it alone, whichever shard runs it.
        let names = plan.outputDirectory != nil ? inputs.map { $0.relativeName ?? "stdin" } : Self.outputNames(inputs)
        var skipped = 0
        for (index, (input, name)) in zip(inputs, names).enumerated() {
            if let signal = stop?.signalReceived {
                Self.report("\(StopSignals.name(signal)): \(inputs.count - index) input(s) not read")
                break
            }
            let files = OutputFiles(
                name: name, annotateDirectory: annotateDirectory, inputs: inputFiles, atomic: plan.outputDirectory != nil)
            var writer = writer
            if let records = plan.recordsPath(for: input, format: options.outputFormat ?? (input.kind == .image ? .json : .jsonl)) {
                // The records file is put in place last, after the annotation and masks: there
                // means the input is done.
                if plan.skipExisting, AtomicOutput.isComplete(records) {
                    skipped += 1
                    progress.fileDone()
                    continue
                }
                AtomicOutput.removeLeftovers(of: records)
                if let target = annotationTarget(files, video: input.kind != .image) { AtomicOutput.removeLeftovers(of: target) }
                writer = try RecordWriter(
                    format: options.outputFormat ?? (input.kind == .image ? .json : .jsonl), path: records, inputs: inputFiles,
                    atomically: true)
            }
            do {
                switch input.kind {
                case .live:
                    guard let stop else { continue }
                    try runLive(input, &processor, writer: writer, files: files, stop: stop)
                case .stream:
                    try runVideo(input, &processor, writer: writer, progress: progress, files: files)
                case .image:
                    progress.beginFile(input.path, frames: nil)
                    try runImage(input, &processor, writer: writer, files: files)
                case .video:
                    try runVideo(input, &processor, writer: writer, progress: progress, files: files)
                case .raw:
                    guard let rawSpec else { continue }
                    try runRaw(input, spec: rawSpec, &processor, writer: writer, progress: progress, files: files)
                }
                if input.kind != .image, let line = processor.end(input: input) {
                    progress.clear()
                    try writer.writeClosingLine(line, file: input.path == "-" ? "<stdin>" : input.path)
                }
                if plan.outputDirectory != nil { try writer.finish(createIfEmpty: true) }
            } catch let error as OutputError {
                // A full disk or a closed pipe fails every later input too: stop here. (A
                // records file of --output-dir is left unfinished: its temporary file goes.)
                progress.clear()
                if plan.outputDirectory == nil { try? writer.finish() }
                throw error
            } catch {
                progress.clear()
                Self.report(String(describing: error))
                ok = false
            }
            progress.fileDone()
        }
        if skipped > 0, let directory = plan.outputDirectory {
            progress.clear()
            Self.report("\(skipped) input(s) skipped: their records in \(directory) are complete (--skip-existing)")
        }
        if plan.outputDirectory == nil { try writer.finish(createIfEmpty: ok) }
        return ok
    }

    /// How the annotation and mask files of one input are named.
    struct OutputFiles {
        /// The input's name without extension, made unique among the inputs.
        var name: String
        /// Whether `--annotate` names a directory (several inputs) rather than a file.
        var annotateDirectory: Bool
        /// The run's inputs, which no annotation or mask may overwrite.
        var inputs: InputFiles
        /// Whether the annotation and masks are written atomically (`--output-dir`).
        var atomic = false
    }

    /// Each input's file name without extension (`stdin` for `-`); when two inputs would share
    /// one (`a/x.jpg` and `b/x.jpg`, or `x.jpg` and `x.png`), later ones get `-2`, `-3`, ... so
    /// that no annotation or mask overwrites another.
    static func outputNames(_ inputs: [MediaInput]) -> [String] {
        var used: Set<String> = []
        return inputs.map { input in
            let base = input.path == "-" ? "stdin" : ((input.path as NSString).lastPathComponent as NSString).deletingPathExtension
            var name = base
            var suffix = 2
            while used.contains(name) {
                name = "\(base)-\(suffix)"
                suffix += 1
            }
            used.insert(name)
            return name
        }
    }

    static func report(_ message: String) {
        FileHandle.standardError.write(Data("vision-tasks: \(message)\n".utf8))
    }

    private func runImage<P: FrameProcessor>(
        _ input: MediaInput, _ processor: inout P, writer: RecordWriter, files: OutputFiles
    ) throws {
        let image: MPImage
        do {
            image = try MPImage(contentsOfFile: input.path)
        } catch let error as MediaIOError where !MediaInput.isRegularFile(input.path) {
            // A pipe is read once, as one image: say so when it was something else.
            guard case .unsupportedFormat(let detail) = error.reason else { throw error }
            throw MediaIOError(source: error.source, reason: .unsupportedFormat(
                detail + "; a pipe or FIFO is read as one JPEG or PNG image (give a video as a file, raw frames with --raw)"))
        }
        try processor.begin(input: input, mode: .image)
        let output = try processor.process(image: image, timestampInMilliseconds: 0, frameIndex: 0)
        let record = FrameRecord(
            file: input.path, width: image.width, height: image.height, resultKey: processor.resultKey, result: output.record)
        try writer.write(record, summary: output.summary)
        if let target = annotationTarget(files, video: false) {
            let drawn = AnnotationRenderer.render(output.overlay, on: try image.uprightRGB())
            let jpeg = ImageEncoder.Format(pathExtension: (target as NSString).pathExtension) == .jpeg
            try OutputFile.write(
                jpeg ? ImageEncoder.jpeg(drawn) : ImageEncoder.png(drawn), to: target, inputs: files.inputs, atomically: files.atomic)
        }
        try writeMasks(output.masks, files: files, frame: nil)
    }

    private func runVideo<P: FrameProcessor>(
        _ input: MediaInput, _ processor: inout P, writer: RecordWriter, progress: ProgressReporter, files: OutputFiles
    ) throws {
        let reader = input.kind == .stream
            ? try LiveSourceReader.open(input, options: options.live, appliesDisplayRotation: !options.ignoreDisplayRotation, token: nil)
            : try VideoReader(path: input.path, appliesDisplayRotation: !options.ignoreDisplayRotation)
        progress.beginFile(input.path, frames: reader.info.declaredFrameCount)
        try processor.begin(input: input, mode: options.runningMode?.runningMode ?? .video)
        var videoWriter: AnnotationVideo?
        while let frame = try reader.nextFrame() {
            let image = MPImage(pixelBuffer: frame.image)
            let output = try processor.process(
                image: image, timestampInMilliseconds: frame.timestampInMilliseconds, frameIndex: frame.index)
            let record = FrameRecord(
                file: input.path, frame: frame.index, timestampInMilliseconds: frame.timestampInMilliseconds,
                resultKey: processor.resultKey, result: output.record)
            try writer.write(record, summary: output.summary)
            if let target = annotationTarget(files, video: true) {
                if videoWriter == nil {
                    videoWriter = try AnnotationVideo(
                        target: target, width: image.width, height: image.height,
                        framesPerSecond: reader.info.framesPerSecond > 0 ? reader.info.framesPerSecond : 30,
                        inputs: files.inputs, atomically: files.atomic)
                }
                try videoWriter?.append(
                    AnnotationRenderer.render(output.overlay, on: frame.image), timestampInMilliseconds: frame.timestampInMilliseconds)
            }
            try writeMasks(output.masks, files: files, frame: frame.index)
            progress.frameDone()
        }
        try videoWriter?.finish()
    }

    private func runRaw<P: FrameProcessor>(
        _ input: MediaInput, spec: RawFrameSpec, _ processor: inout P, writer: RecordWriter, progress: ProgressReporter,
        files: OutputFiles
    ) throws {
        let reader = try RawFrameReader(path: input.path, spec: spec)
        progress.beginFile(input.path == "-" ? "<stdin>" : input.path, frames: nil)
        try processor.begin(input: input, mode: options.runningMode?.runningMode ?? .video)
        var videoWriter: AnnotationVideo?
        var index = 0
        while let pixels = try reader.next() {
            let image = MPImage(pixelBuffer: pixels)
            let timestamp = Int((Double(index) * 1000 / options.fps).rounded())
            let output = try processor.process(image: image, timestampInMilliseconds: timestamp, frameIndex: index)
            let record = FrameRecord(
                file: reader.source, frame: index, timestampInMilliseconds: timestamp, resultKey: processor.resultKey,
                result: output.record)
            try writer.write(record, summary: output.summary)
            if let target = annotationTarget(files, video: true) {
                if videoWriter == nil {
                    videoWriter = try AnnotationVideo(
                        target: target, width: image.width, height: image.height, framesPerSecond: options.fps,
                        inputs: files.inputs, atomically: files.atomic)
                }
                try videoWriter?.append(AnnotationRenderer.render(output.overlay, on: try image.uprightRGB()), timestampInMilliseconds: timestamp)
            }
            try writeMasks(output.masks, files: files, frame: index)
            progress.frameDone()
            index += 1
        }
        try videoWriter?.finish()
    }

    /// Whether two output paths name one file: the same path once made absolute, or (when both
    /// exist) the same device and inode.
    static func sameFile(_ a: String, _ b: String) -> Bool {
        func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
        if absolute(a) == absolute(b) { return true }
        guard let first = FileIdentity(path: a), let second = FileIdentity(path: b) else { return false }
        return first == second
    }

    /// Extensions `--annotate` may have: the drawn image's formats, the drawn video's containers.
    static let annotatedImageExtensions: Set<String> = ["png", "jpg", "jpeg"]
    static let annotatedVideoExtensions: Set<String> = ["mp4", "mov", "mkv", "webm", "avi"]

    /// Refuses an `--annotate` file whose extension says another kind of file than the input
    /// gives (a video drawn to `x.png` was written as an MP4 under that name, an image drawn to
    /// `x.mp4` as a PNG).
    static func checkAnnotationExtension(_ path: String, video: Bool) throws {
        let ext = (path as NSString).pathExtension.lowercased()
        let allowed = video ? annotatedVideoExtensions : annotatedImageExtensions
        guard !allowed.contains(ext) else { return }
        throw OutputError(description: video
            ? "--annotate \(path): a video is drawn to a video file (.mp4, .mov, .mkv, .webm or .avi)"
            : "--annotate \(path): an image is drawn to an image file (.png or .jpg)")
    }

    /// Creates an output directory (and its parents); a clear error when a file is in the way.
    static func createDirectory(_ path: String, option: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw OutputError(description: "\(option) \(path): is a file, not a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw OutputError(description: "\(option) \(path): cannot create the directory (\(OutputFile.lastError()))")
        }
    }

    static func isDirectoryTarget(_ path: String?, inputCount: Int) -> Bool {
        guard let path else { return false }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) { return isDirectory.boolValue }
        return inputCount > 1 || path.hasSuffix("/")
    }

    /// Where the annotated output of an input goes, or nil without `--annotate`.
    func annotationTarget(_ files: OutputFiles, video: Bool) -> String? {
        guard let annotate = options.annotate else { return nil }
        guard files.annotateDirectory else { return annotate }
        return (annotate as NSString).appendingPathComponent(files.name + ".annotated." + (video ? "mp4" : "png"))
    }

    func writeMasks(_ masks: [PixelBuffer], files: OutputFiles, frame: Int?) throws {
        guard let directory = options.masks, !masks.isEmpty else { return }
        for (i, mask) in masks.enumerated() {
            let name = files.name + (frame.map { String(format: "_frame%05d", $0) } ?? "") + "_mask\(i).png"
            try OutputFile.write(
                ImageEncoder.png(mask), to: (directory as NSString).appendingPathComponent(name), inputs: files.inputs,
                atomically: files.atomic)
        }
    }
}
