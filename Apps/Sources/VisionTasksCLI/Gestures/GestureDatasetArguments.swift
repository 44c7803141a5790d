import ArgumentParser
import Foundation
import MediaIO
import VisionTasks

/// The options `gesture train` and `gesture evaluate` share: how the dataset folder is read
/// (Model Maker's hand detection confidence, the video sampling rate, the embedding cache), and
/// the reading itself with its progress bar and report on stderr.
struct GestureDatasetArguments: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Frames taken per second of video from the videos in the label folders.", valueName: "fps"))
    var videoFps: Double = 5

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Palm detector score threshold for the dataset's hands (0...1; Model Maker's 0.7).", valueName: "score"))
    var minHandDetectionConfidence: Float = 0.7

    @Option(help: ArgumentHelp(
        "A file to keep the hands' embeddings in: files embedded before with the same models and settings are not embedded again.",
        valueName: "file"))
    var cache: String?

    @Flag(name: .shortAndLong, help: "List every image and frame in which no hand was found, and every file left out.")
    var verbose = false

    func validate() throws {
        guard videoFps.isFinite, videoFps > 0, videoFps <= 1000 else {
            throw ValidationError("--video-fps must be a number of frames per second above 0 (at most 1000), got \(videoFps)")
        }
        guard minHandDetectionConfidence.isFinite, (0...1).contains(minHandDetectionConfidence) else {
            throw ValidationError("--min-hand-detection-confidence must be between 0 and 1, got \(minHandDetectionConfidence)")
        }
    }

    /// Scans `folder` (errors for a layout that cannot be trained on come here, before any
    /// model runs) and warns about what is left out.
    func scan(_ folder: String) throws -> GestureDatasetFolder {
        let scanned = try GestureDatasetFolder(url: URL(fileURLWithPath: folder), decoder: MediaFileDecoder())
        if !scanned.ignored.isEmpty {
            MediaDriver.report("warning: \(scanned.ignored.count) entries of \(folder) are not read (not images or videos, names that are not UTF-8, subfolders)\(verbose ? ":" : "; --verbose lists them")")
            if verbose {
                for entry in scanned.ignored { MediaDriver.report("  \(entry.relativePath): \(entry.reason)") }
            }
        }
        return scanned
    }

    /// Embeds the scanned folder's hands with the bundle at `modelPath`, drawing a progress bar
    /// on stderr, then reports per label how many samples it gave and how many images and
    /// frames had no hand.
    func load(_ folder: GestureDatasetFolder, modelPath: String, threads: Int) throws -> GestureDataset {
        let embedderOptions = GestureEmbedderOptions(modelPath: modelPath, minHandDetectionConfidence: minHandDetectionConfidence)
        embedderOptions.baseOptions.numThreads = threads
        let embedder = try GestureEmbedder(options: embedderOptions)
        let images = folder.files.filter { $0.kind == .image }.count
        MediaDriver.report(
            "embedding the hands of \(images) images and \(folder.files.count - images) videos in \(folder.labels.count) labels: \(folder.labels.joined(separator: ", "))")
        let progress = ProgressReporter(enabled: true, totalFiles: folder.files.count)
        var current: String?
        var inputs = 0
        let dataset = try GestureDataset(
            folder: folder, embedder: embedder, decoder: MediaFileDecoder(),
            options: GestureDatasetOptions(videoFramesPerSecond: videoFps, cache: cache.map { URL(fileURLWithPath: $0) })
        ) { state in
            if state.currentFile != current, let file = state.currentFile {
                if current != nil { progress.fileDone() }
                current = file
                progress.beginFile(file, frames: nil)
            }
            // Called after each image or frame, and once more when a file is done.
            if state.samples + state.skipped > inputs {
                inputs = state.samples + state.skipped
                progress.frameDone()
            }
        }
        if current != nil { progress.fileDone() }
        progress.finish()
        report(dataset)
        return dataset
    }

    /// Per label: samples, images and frames without a hand, unreadable files.
    private func report(_ dataset: GestureDataset) {
        let counts = dataset.sampleCounts
        var lines: [String] = []
        var withoutHand = 0
        for label in dataset.labels {
            let skipped = dataset.skipped.filter { $0.label == label }
            let unreadable = skipped.filter(\.isUnreadable).count
            withoutHand += skipped.count - unreadable
            var line = "  \(label): \(counts[label, default: 0]) samples"
            if skipped.count > unreadable { line += ", \(skipped.count - unreadable) without a hand" }
            if unreadable > 0 { line += ", \(unreadable) unreadable files" }
            lines.append(line)
        }
        MediaDriver.report("\(dataset.count) samples:\n" + lines.joined(separator: "\n"))
        let unreadable = dataset.skipped.filter(\.isUnreadable)
        for input in unreadable {
            if case .unreadable(let message) = input.reason { MediaDriver.report("warning: \(input.source ?? input.label): skipped, \(message)") }
        }
        if verbose {
            for input in dataset.skipped where !input.isUnreadable {
                let at = input.timestampInMilliseconds.map { " at \($0) ms" } ?? ""
                MediaDriver.report("  no hand: \(input.source ?? input.label)\(at)")
            }
        } else if withoutHand > 0 {
            MediaDriver.report("(--verbose lists the \(withoutHand) images and frames without a hand)")
        }
    }
}
