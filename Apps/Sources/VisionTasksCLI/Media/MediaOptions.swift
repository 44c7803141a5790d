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
        "Images (JPEG, PNG), videos (MP4, WebM, AVI, GIF...), directories (processed recursively, in name order), live sources (rtsp://, http://host/stream.mjpg, udp://127.0.0.1:5000, a camera with --input-format v4l2 /dev/video0); '-' reads raw frames from stdin (needs --raw).",
        valueName: "input"))
    var inputs: [String] = []

    @OptionGroup(title: "Live sources") var live: LiveOptions

    @Option(help: "json (one object per image; an array for several), jsonl (one object per image or video frame) or text. Default: json for a single image, jsonl otherwise.")
    var outputFormat: OutputFormat?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write results to this file instead of stdout.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp(
        "Draw the results: a PNG/JPEG (by extension) for an image, an MP4 for a video; a directory when there are several inputs.",
        valueName: "out"))
    var annotate: String?

    @Option(help: ArgumentHelp("pose only: write segmentation masks as PNG files into this directory.", valueName: "dir"))
    var masks: String?

    @Option(help: ArgumentHelp(
        "Read inputs as raw frames WIDTHxHEIGHT:FORMAT, FORMAT one of rgb24, rgba, bgra, gray, nv12 (video range), nv12full; one frame after another.",
        valueName: "WxH:format"))
    var raw: String?

    @Option(parsing: .unconditional, help: "Frame rate of raw frames, for their timestamps (0.001 to 1000).")
    var fps: Double = 30

    @Option(help: "image: every image and frame independently; video: track across the frames of a video (default for videos and raw streams).")
    var runningMode: RunningModeOption?

    @Flag(help: "Process video frames as stored, ignoring the container's display rotation (applied by default, as OpenCV does).")
    var ignoreDisplayRotation = false

    @Flag(help: "Do not show progress on stderr.")
    var noProgress = false

    @OptionGroup(title: "Batch runs") var batch: BatchOptions

    mutating func validate() throws {
        if inputs.isEmpty, batch.inputsFrom == nil {
            throw ValidationError("give at least one input (an image, a video, a directory, or '-'), or --inputs-from FILE")
        }
        if output != nil, batch.outputDirectory != nil {
            throw ValidationError("give -o FILE (all records in one file) or --output-dir DIR (a records file per input), not both")
        }
        // Before: "Error: : cannot write: No such file or directory" and the like.
        for (flag, value) in [("--output", output), ("--annotate", annotate), ("--masks", masks)] where value?.isEmpty == true {
            throw ValidationError("\(flag) needs a file or folder name, not an empty string")
        }
        if inputs.contains("") { throw ValidationError("an input is an empty string; give a file, a directory or '-'") }
        if let raw { _ = try RawFrameSpec(parsing: raw) }
        // Timestamps are whole milliseconds: above 1000 fps two frames would share one; far
        // below 0.001 fps the timestamps overflow.
        guard fps >= 0.001, fps <= 1000 else { throw ValidationError("--fps must be between 0.001 and 1000, got \(fps)") }
    }
}
