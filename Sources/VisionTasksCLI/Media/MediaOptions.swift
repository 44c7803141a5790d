import ArgumentParser
import VisionTasks

/// `--running-mode`: the task running modes that make sense on files.
enum RunningModeOption: String, ExpressibleByArgument, CaseIterable, Sendable {
    case image
    case video

    var runningMode: RunningMode { self == .image ? .image : .video }
}

/// The media options every task command shares: inputs, output, annotation, raw frames, progress.
struct MediaOptions: ParsableArguments {
    @Argument(help: ArgumentHelp(
        "Images (JPEG, PNG), videos (MP4, WebM, AVI, GIF...) or directories (processed recursively, in name order); '-' reads raw frames from stdin (needs --raw).",
        valueName: "input"))
    var inputs: [String] = []

    @Option(help: "json (one object per image; an array for several), jsonl (one object per image or video frame) or text. Default: json for a single image, jsonl otherwise.")
    var outputFormat: OutputFormat?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write results to this file instead of stdout.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp(
        "Draw the results: a PNG/JPEG (by extension) for an image, an MP4 for a video; a directory when there are several inputs.",
        valueName: "out"))
    var annotate: String?

    @Option(help: ArgumentHelp("Write segmentation masks as PNG files into this directory (pose).", valueName: "dir"))
    var masks: String?

    @Option(help: ArgumentHelp(
        "Read inputs as raw frames WIDTHxHEIGHT:FORMAT, FORMAT one of rgb24, rgba, bgra, gray, nv12 (video range), nv12full; one frame after another.",
        valueName: "WxH:format"))
    var raw: String?

    @Option(help: "Frame rate of raw frames, for their timestamps.")
    var fps: Double = 30

    @Option(help: "image: every image and frame independently; video: track across the frames of a video (default for videos and raw streams).")
    var runningMode: RunningModeOption?

    @Flag(help: "Process video frames as stored, ignoring the container's display rotation (applied by default, as OpenCV does).")
    var ignoreDisplayRotation = false

    @Flag(help: "Do not show progress on stderr.")
    var noProgress = false

    mutating func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one input (an image, a video, a directory, or '-')") }
        if let raw { _ = try RawFrameSpec(parsing: raw) }
        guard fps > 0, fps.isFinite else { throw ValidationError("--fps must be positive") }
    }
}
