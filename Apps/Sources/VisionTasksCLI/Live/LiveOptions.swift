import ArgumentParser
import Foundation
import MediaIO

/// The options of live sources, shared by `gesture`, `hands`, `pose` and `swipe`: how an input
/// is recognised as live and how it is opened (docs/hands-over-time.md, "Live sources").
///
/// An input is live when it is a URL whose scheme streams (`rtsp`, `rtsps`, `rtmp`, `rtmps`,
/// `http`, `https`, `udp`, `tcp`, `rtp`, `srt`) or when `--input-format` names one of FFmpeg's
/// capture devices (`v4l2` for `/dev/video0`); `--live` makes every input live (a file is then
/// read at its own pace, as a camera would deliver it) and `--no-live` none (a URL is read
/// like a file: every frame, in video mode).
struct LiveOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "FFmpeg's input format or capture device for the inputs, as `ffmpeg -f` (v4l2 for a camera such as /dev/video0, mjpeg, mpegts...).",
        valueName: "name"))
    var inputFormat: String?

    @Option(name: .customLong("input-option"), help: ArgumentHelp(
        "An option of the input format, device or protocol, as ffmpeg's input options: video_size=640x480, framerate=30, input_format=mjpeg (V4L2), rtsp_transport=tcp. Repeat for several.",
        valueName: "key=value"))
    var inputOptions: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Seconds a live source may take to connect and show its first picture, and then to send each next packet; 0: no limit (Ctrl-C still stops).",
        valueName: "seconds"))
    var inputTimeout: Double = 10

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "--live: read every input as a live source in real time (live-stream mode: frames that arrive while the task is busy are dropped; files are read at their own frame rate). --no-live: read URLs and devices like files (video mode, every frame). Default: URLs of streaming schemes and capture devices are live, files are not."))
    var live: Bool?

    /// URL schemes whose sources are live by default.
    static let liveSchemes: Set<String> = ["rtsp", "rtsps", "rtmp", "rtmps", "http", "https", "udp", "tcp", "rtp", "srt"]

    /// The V4L2 device names of FFmpeg (`-f v4l2`, `-f video4linux2`).
    static let v4l2Names: Set<String> = ["v4l2", "video4linux2"]

    mutating func validate() throws {
        guard inputTimeout.isFinite, inputTimeout >= 0, inputTimeout <= 86_400 else {
            throw ValidationError("--input-timeout must be between 0 and 86400 seconds, got \(inputTimeout)")
        }
        _ = try formatOptions()
        if let inputFormat, inputFormat.isEmpty { throw ValidationError("--input-format needs a name (v4l2, mjpeg, mpegts...)") }
    }

    /// `--input-option` as a dictionary.
    func formatOptions() throws -> [String: String] {
        var options: [String: String] = [:]
        for option in inputOptions {
            guard let equals = option.firstIndex(of: "="), equals != option.startIndex else {
                throw ValidationError("--input-option takes key=value (e.g. video_size=640x480), got \(option)")
            }
            options[String(option[..<equals])] = String(option[option.index(after: equals)...])
        }
        return options
    }

    /// The scheme of a URL argument (`rtsp` of `rtsp://cam/stream`), nil for paths.
    static func urlScheme(_ argument: String) -> String? {
        guard let range = argument.range(of: "://") else { return nil }
        let scheme = argument[..<range.lowerBound]
        guard let first = scheme.first, first.isLetter,
              scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
        else { return nil }
        return scheme.lowercased()
    }

    /// Whether `--input-format` names a capture device (a camera, a screen).
    var formatIsDevice: Bool {
        guard let inputFormat else { return false }
        return Self.v4l2Names.contains(inputFormat) || VideoReader.isCaptureDevice(formatName: inputFormat)
    }

    /// What kind of input `argument` is through FFmpeg (a URL, a device, or a file with
    /// `--live` or `--input-format`); nil for a plain file or directory, which the usual rules take.
    func kind(of argument: String, isRegularFile: Bool) -> MediaInput.Kind? {
        if let scheme = Self.urlScheme(argument) {
            return live ?? Self.liveSchemes.contains(scheme) ? .live : .stream
        }
        if isRegularFile {
            if live == true { return .live }
            return inputFormat != nil ? .stream : nil
        }
        if inputFormat != nil { return live ?? formatIsDevice ? .live : .stream }
        return live == true ? .live : nil
    }

    /// How to open `input` (its token ends a blocked read; rotation as the command says).
    func sourceOptions(live: Bool, appliesDisplayRotation: Bool, token: InterruptToken?) throws -> VideoSourceOptions {
        VideoSourceOptions(
            formatName: inputFormat, formatOptions: try formatOptions(), timeoutSeconds: inputTimeout,
            appliesDisplayRotation: appliesDisplayRotation, isLive: live, interruptToken: token)
    }

    /// A clear message for a camera path that does not exist, with the cameras there are.
    static func missingDeviceMessage(_ path: String) -> String {
        let devices = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? [])
            .filter { $0.hasPrefix("video") }.sorted().map { "/dev/" + $0 }
        let present = devices.isEmpty ? "this machine has no /dev/video* device" : "cameras here: " + devices.joined(separator: ", ")
        return "\(path): no such camera device (\(present))"
    }
}
