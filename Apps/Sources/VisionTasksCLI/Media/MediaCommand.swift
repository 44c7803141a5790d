import ArgumentParser
import Foundation
import MediaIO
import VisionTasks

/// `vision-tasks media`: look at images and videos the way the tasks will see them.
struct MediaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media",
        abstract: "Inspect and decode images and videos as the tasks see them.",
        subcommands: [MediaInfoCommand.self, MediaDecodeCommand.self])
}

/// `vision-tasks media info FILE...`
struct MediaInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print dimensions, orientation, codec, frame rate and frame count of images and videos.",
        discussion: """
            Examples:
              vision-tasks media info photo.jpg clip.mp4
              vision-tasks media info --count-frames videos/
            """)

    @Argument(help: "Images, videos or directories.") var inputs: [String]
    @Flag(help: "Decode every frame of videos to count them (and find damage).") var countFrames = false

    func run() throws {
        let found = InputEnumerator.enumerate(inputs, raw: false)
        var ok = found.problems.isEmpty
        for problem in found.problems { MediaDriver.report(problem) }
        for note in found.notes { MediaDriver.report(note) }
        for input in found.inputs {
            do {
                print(try Self.describe(input, countFrames: countFrames))
            } catch {
                MediaDriver.report(String(describing: error))
                ok = false
            }
        }
        if !ok { throw ExitCode(1) }
    }

    static func describe(_ input: MediaInput, countFrames: Bool) throws -> String {
        switch input.kind {
        case .image, .raw:
            let decoded = try ImageDecoder.decode(contentsOfFile: input.path)
            let p = decoded.pixels
            return "\(input.path): image \(decoded.container.rawValue) \(p.width)x\(p.height) \(p.format.rawValue)"
                + ", EXIF orientation \(decoded.exifOrientation) (applied)"
        case .video:
            let reader = try VideoReader(path: input.path)
            let i = reader.info
            var line = "\(input.path): video \(i.containerName) \(i.codecName) \(i.width)x\(i.height)"
                + String(format: ", %.3f fps", i.framesPerSecond)
            if let d = i.durationSeconds { line += String(format: ", %.2f s", d) }
            if let n = i.declaredFrameCount { line += ", \(n) frames declared" }
            if i.displayRotation != 0 {
                let turned = i.displayRotation % 180 == 0 ? "\(i.width)x\(i.height)" : "\(i.height)x\(i.width)"
                line += ", display rotation \(i.displayRotation)° clockwise (applied: frames \(turned))"
            }
            if countFrames {
                var count = 0
                var last = 0
                while let frame = try reader.nextFrame() {
                    count += 1
                    last = frame.timestampInMilliseconds
                }
                line += ", \(count) frames decoded, last at \(last) ms"
            }
            return line
        case .live, .stream:
            // `media` takes paths only (InputEnumerator without live options).
            throw MediaIOError(source: input.path, reason: .unsupportedFormat("media info describes files"))
        }
    }
}

/// `vision-tasks media decode INPUT --output FILE`
struct MediaDecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an image or video to raw RGB frames (rgb24), or an image to PNG.",
        discussion: """
            The frames are exactly the pixels the tasks receive. Examples:
              vision-tasks media decode clip.mp4 -o frames.rgb  # then --raw 640x360:rgb24
              vision-tasks media decode photo.jpg -o upright.png
            """)

    @Argument(help: "An image or a video.") var input: String
    @Option(name: .shortAndLong, help: "Output file: .png for an image, otherwise raw rgb24 frames.") var output: String

    func run() throws {
        if let problem = InputEnumerator.deviceProblem(input) { throw InputError(description: problem) }
        guard let kind = MediaInput.kind(ofFile: input, strict: true) else { throw ExitCode(1) }
        let inputs = InputFiles([MediaInput(path: input, kind: kind)])
        if output.lowercased().hasSuffix(".png") {
            guard kind == .image else { throw ValidationError("PNG output is for images; use a .rgb file for videos") }
            try OutputFile.write(try ImageEncoder.png(ImageDecoder.decode(contentsOfFile: input).pixels), to: output, inputs: inputs)
            return
        }
        if kind == .image {
            let bytes = try ImageDecoder.decode(contentsOfFile: input).pixels.convertedToRGB8().packed().bytes
            try OutputFile.write(bytes, to: output, inputs: inputs)
            return
        }
        let reader = try VideoReader(path: input)
        // Opened after the input, so a bad input leaves an existing output untouched.
        let file = try OutputFile(path: output, inputs: inputs)
        var count = 0
        // The frames' size: the stored one turned by the display rotation.
        var size = (reader.info.width, reader.info.height)
        while let frame = try reader.nextFrame() {
            try file.write(Data(frame.image.packed().bytes))
            size = (frame.image.width, frame.image.height)
            count += 1
        }
        try file.close()
        FileHandle.standardError.write(Data("\(input): \(count) frames of \(size.0)x\(size.1) rgb24\n".utf8))
    }
}
