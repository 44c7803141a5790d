import Foundation
import MediaIO
import VisionTasks

/// Runs a `FrameProcessor` over the inputs of a command: enumerates and decodes them, feeds the
/// task, writes records, annotations and masks, shows progress, and reports bad inputs on
/// stderr (skipping them). Returns whether every input succeeded.
struct MediaDriver {
    let options: MediaOptions

    /// Runs `processor` on every input; false if any input (or argument) failed.
    func run<P: FrameProcessor>(_ processor: inout P) throws -> Bool {
        let rawSpec = try options.raw.map { try RawFrameSpec(parsing: $0) }
        let found = InputEnumerator.enumerate(options.inputs, raw: rawSpec != nil)
        var ok = found.problems.isEmpty
        for problem in found.problems { Self.report(problem) }
        let single = found.inputs.count == 1 && found.inputs.first?.kind == .image
        let format = options.outputFormat ?? (single ? .json : .jsonl)
        let writer = try RecordWriter(format: format, path: options.output)
        defer { writer.finish() }
        let progress = ProgressReporter(enabled: !options.noProgress, totalFiles: found.inputs.count)
        defer { progress.finish() }
        let annotateDirectory = Self.isDirectoryTarget(options.annotate, inputCount: found.inputs.count)
        if let masks = options.masks { try FileManager.default.createDirectory(atPath: masks, withIntermediateDirectories: true) }
        if annotateDirectory, let annotate = options.annotate {
            try FileManager.default.createDirectory(atPath: annotate, withIntermediateDirectories: true)
        }

        for input in found.inputs {
            do {
                switch input.kind {
                case .image:
                    progress.beginFile(input.path, frames: nil)
                    try runImage(input, &processor, writer: writer, annotateDirectory: annotateDirectory)
                case .video:
                    try runVideo(input, &processor, writer: writer, progress: progress, annotateDirectory: annotateDirectory)
                case .raw:
                    guard let rawSpec else { continue }
                    try runRaw(input, spec: rawSpec, &processor, writer: writer, progress: progress, annotateDirectory: annotateDirectory)
                }
            } catch {
                progress.clear()
                Self.report(String(describing: error))
                ok = false
            }
            progress.fileDone()
        }
        return ok
    }

    static func report(_ message: String) {
        FileHandle.standardError.write(Data("vision-tasks: \(message)\n".utf8))
    }

    private func runImage<P: FrameProcessor>(
        _ input: MediaInput, _ processor: inout P, writer: RecordWriter, annotateDirectory: Bool
    ) throws {
        let image = try MPImage(contentsOfFile: input.path)
        try processor.begin(input: input, mode: .image)
        let output = try processor.process(image: image, timestampInMilliseconds: 0, frameIndex: 0)
        let record = FrameRecord(
            file: input.path, width: image.width, height: image.height, resultKey: processor.resultKey, result: output.record)
        try writer.write(record, summary: output.summary)
        if let target = annotationTarget(for: input, video: false, directory: annotateDirectory) {
            try ImageEncoder.write(AnnotationRenderer.render(output.overlay, on: try image.uprightRGB()), to: target)
        }
        try writeMasks(output.masks, input: input, frame: nil)
    }

    private func runVideo<P: FrameProcessor>(
        _ input: MediaInput, _ processor: inout P, writer: RecordWriter, progress: ProgressReporter, annotateDirectory: Bool
    ) throws {
        let reader = try VideoReader(path: input.path)
        progress.beginFile(input.path, frames: reader.info.declaredFrameCount)
        try processor.begin(input: input, mode: options.runningMode?.runningMode ?? .video)
        var videoWriter: VideoWriter?
        defer { try? videoWriter?.finish() }
        while let frame = try reader.nextFrame() {
            let image = MPImage(pixelBuffer: frame.image)
            let output = try processor.process(
                image: image, timestampInMilliseconds: frame.timestampInMilliseconds, frameIndex: frame.index)
            let record = FrameRecord(
                file: input.path, frame: frame.index, timestampInMilliseconds: frame.timestampInMilliseconds,
                resultKey: processor.resultKey, result: output.record)
            try writer.write(record, summary: output.summary)
            if let target = annotationTarget(for: input, video: true, directory: annotateDirectory) {
                if videoWriter == nil {
                    videoWriter = try VideoWriter(
                        path: target, width: image.width, height: image.height,
                        framesPerSecond: reader.info.framesPerSecond > 0 ? reader.info.framesPerSecond : 30)
                }
                try videoWriter?.append(
                    AnnotationRenderer.render(output.overlay, on: frame.image), timestampInMilliseconds: frame.timestampInMilliseconds)
            }
            try writeMasks(output.masks, input: input, frame: frame.index)
            progress.frameDone()
        }
        try videoWriter?.finish()
    }

    private func runRaw<P: FrameProcessor>(
        _ input: MediaInput, spec: RawFrameSpec, _ processor: inout P, writer: RecordWriter, progress: ProgressReporter,
        annotateDirectory: Bool
    ) throws {
        let reader = try RawFrameReader(path: input.path, spec: spec)
        progress.beginFile(input.path == "-" ? "<stdin>" : input.path, frames: nil)
        try processor.begin(input: input, mode: options.runningMode?.runningMode ?? .video)
        var videoWriter: VideoWriter?
        defer { try? videoWriter?.finish() }
        var index = 0
        while let pixels = try reader.next() {
            let image = MPImage(pixelBuffer: pixels)
            let timestamp = Int((Double(index) * 1000 / options.fps).rounded())
            let output = try processor.process(image: image, timestampInMilliseconds: timestamp, frameIndex: index)
            let record = FrameRecord(
                file: reader.source, frame: index, timestampInMilliseconds: timestamp, resultKey: processor.resultKey,
                result: output.record)
            try writer.write(record, summary: output.summary)
            if let target = annotationTarget(for: input, video: true, directory: annotateDirectory) {
                if videoWriter == nil {
                    videoWriter = try VideoWriter(path: target, width: image.width, height: image.height, framesPerSecond: options.fps)
                }
                try videoWriter?.append(AnnotationRenderer.render(output.overlay, on: try image.uprightRGB()), timestampInMilliseconds: timestamp)
            }
            try writeMasks(output.masks, input: input, frame: index)
            progress.frameDone()
            index += 1
        }
        try videoWriter?.finish()
    }

    static func isDirectoryTarget(_ path: String?, inputCount: Int) -> Bool {
        guard let path else { return false }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) { return isDirectory.boolValue }
        return inputCount > 1 || path.hasSuffix("/")
    }

    /// Where the annotated output of `input` goes, or nil without `--annotate`.
    func annotationTarget(for input: MediaInput, video: Bool, directory: Bool) -> String? {
        guard let annotate = options.annotate else { return nil }
        guard directory else { return annotate }
        let base = input.path == "-" ? "stdin" : ((input.path as NSString).lastPathComponent as NSString).deletingPathExtension
        return (annotate as NSString).appendingPathComponent(base + ".annotated." + (video ? "mp4" : "png"))
    }

    private func writeMasks(_ masks: [PixelBuffer], input: MediaInput, frame: Int?) throws {
        guard let directory = options.masks, !masks.isEmpty else { return }
        let base = input.path == "-" ? "stdin" : ((input.path as NSString).lastPathComponent as NSString).deletingPathExtension
        for (i, mask) in masks.enumerated() {
            let name = base + (frame.map { String(format: "_frame%05d", $0) } ?? "") + "_mask\(i).png"
            try ImageEncoder.write(mask, to: (directory as NSString).appendingPathComponent(name), format: .png)
        }
    }
}
