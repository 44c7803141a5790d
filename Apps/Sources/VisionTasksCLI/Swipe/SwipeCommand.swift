import ArgumentParser
import Foundation
import MediaIO
import VisionTasks

/// `vision-tasks swipe`: touchless-control events (thumbs up/down, swipes) from videos, one
/// line per event, optionally running a command per event.
struct SwipeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swipe",
        abstract: "Print thumbs up/down and swipe events from videos (touchless control).",
        discussion: """
            Runs the gesture recognizer in video mode over each input and prints one line per \
            event (GestureEventDetector, docs/hands-over-time.md): thumbsUp and thumbsDown \
            (the recognizer's Thumb_Up / Thumb_Down held for --min-frames frames), swipeLeft \
            and swipeRight (an open hand moving sideways by --swipe-distance hand sizes within \
            --swipe-window ms). Directions are the user's own, for a user facing the camera: \
            in unmirrored frames a hand moving towards the image's left is swipeRight; give \
            --mirrored for a selfie feed that flips its frames (handedness is flipped too).

            --output-format jsonl prints exactly \
            {"timestampInMilliseconds": 1200, "event": "thumbsUp", "hand": 1, "handedness": "Right"} \
            per line (with "input" added when there are several inputs).

            --exec runs COMMAND with /bin/sh for every event, with VISION_TASKS_EVENT, \
            VISION_TASKS_HAND, VISION_TASKS_HANDEDNESS, VISION_TASKS_TIMESTAMP_MS and \
            VISION_TASKS_INPUT in its environment. A command that fails is reported on stderr; \
            the stream goes on (the exit status is 1 at the end). Commands inherit no open \
            file of vision-tasks but stdin, stdout and stderr; one that runs over \
            --exec-timeout is stopped (SIGTERM, then SIGKILL); when vision-tasks is stopped by \
            SIGINT or SIGTERM, running commands get the signal and are waited for.

            Live sources (a camera with --input-format v4l2, rtsp://, http:// MJPEG, udp:// \
            MPEG-TS...) run the recognizer in live-stream mode in real time: a frame that \
            arrives while the previous one is in work is dropped; events are printed as they \
            happen. Ctrl-C or SIGTERM ends the run cleanly (the annotated video completed, the \
            frame counts printed on stderr, exit status 0).

            Examples:
              vision-tasks swipe clip.mp4
              vision-tasks swipe --output-format jsonl --num-hands 2 clip.mp4
              vision-tasks swipe --exec 'notify-send "$VISION_TASKS_EVENT"' clip.mp4
              vision-tasks swipe --annotate events.mp4 clip.mp4
              vision-tasks swipe --input-format v4l2 /dev/video0 --exec 'xdotool key Right'
              vision-tasks swipe --mirrored http://phone.local:8080/video.mjpg
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, jsonl
    }

    @Argument(help: ArgumentHelp(
        "Videos (MP4, WebM, AVI, GIF...) or live sources (rtsp://, http://host/stream.mjpg, udp://127.0.0.1:5000, a camera with --input-format v4l2 /dev/video0).",
        valueName: "input"))
    var inputs: [String] = []

    @OptionGroup(title: "Live sources") var live: LiveOptions

    @Option(help: "text (default) or jsonl.")
    var outputFormat: Format = .text

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the event lines to this file instead of stdout.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Run this shell command for every event (event in its environment).", valueName: "command"))
    var exec: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Seconds an --exec command may run before it is stopped (SIGTERM, SIGKILL 2 s later); 0: no limit.", valueName: "seconds"))
    var execTimeout: Double = 30

    @Option(help: ArgumentHelp("Write the video with hands and events drawn (one input only).", valueName: "file.mp4"))
    var annotate: String?

    @OptionGroup var hands: HandsTaskOptions

    @Flag(help: "The frames are mirror images (selfie feed): flips handedness and swipe directions.")
    var mirrored = false

    @Flag(help: "Process frames as stored, ignoring the container's display rotation (applied by default).")
    var ignoreDisplayRotation = false

    @Flag(help: "Smooth hand landmarks over time (1€ filter, the library's default settings).")
    var smooth = false

    @Flag(help: "Thumbs from the landmark rule (thumb tip above/below the wrist) instead of the recognizer.")
    var thumbRule = false

    @Option(parsing: .unconditional, help: "Frames of evidence an event needs.")
    var minFrames = GestureEventOptions().minimumFrames

    @Option(parsing: .unconditional, help: ArgumentHelp("Sideways travel of a swipe, in hand sizes.", valueName: "hand sizes"))
    var swipeDistance = GestureEventOptions().swipeDistance

    @Option(parsing: .unconditional, help: ArgumentHelp("Time within which a swipe travels its distance.", valueName: "ms"))
    var swipeWindow = GestureEventOptions().swipeWindowMilliseconds

    @Option(parsing: .unconditional, help: ArgumentHelp("Quiet time of a hand after each of its events.", valueName: "ms"))
    var cooldown = GestureEventOptions().cooldownMilliseconds

    mutating func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one video") }
        for (flag, value) in [("--output", output), ("--annotate", annotate)] where value?.isEmpty == true {
            throw ValidationError("\(flag) needs a file name, not an empty string")
        }
        if annotate != nil && inputs.count > 1 { throw ValidationError("--annotate takes one input") }
        // Said with the flags' names (before: "GestureEventOptions: minimumFrames must be at
        // least 1." for --min-frames 0); the detector checks the rest.
        if minFrames < 1 { throw ValidationError("--min-frames must be at least 1, got \(minFrames)") }
        if !(swipeDistance.isFinite && swipeDistance > 0) {
            throw ValidationError("--swipe-distance must be a number above 0, got \(swipeDistance)")
        }
        if swipeWindow < 1 { throw ValidationError("--swipe-window must be at least 1 ms, got \(swipeWindow)") }
        if cooldown < 0 { throw ValidationError("--cooldown must be 0 ms or more, got \(cooldown)") }
        if !(execTimeout.isFinite && execTimeout >= 0 && execTimeout <= 86_400) {
            throw ValidationError("--exec-timeout must be from 0 to 86400 seconds, got \(execTimeout)")
        }
        _ = try GestureEventDetector(options: eventOptions)
    }

    var eventOptions: GestureEventOptions {
        var o = GestureEventOptions()
        o.thumbSource = thumbRule ? .landmarks : .recognizer
        o.minimumFrames = minFrames
        o.swipeDistance = swipeDistance
        o.swipeWindowMilliseconds = swipeWindow
        o.cooldownMilliseconds = cooldown
        o.inputIsMirrored = mirrored
        return o
    }

    func run() throws {
        let modelPath = try hands.model.modelPath(default: .gestureRecognizerBundle)
        let found = InputEnumerator.enumerate(inputs, raw: false, sources: live)
        for problem in found.problems { MediaDriver.report(problem) }
        var ok = found.problems.isEmpty
        // No output may overwrite an input (the rule of every command): `swipe in.mp4 -o in.mp4`
        // would empty the video, `--annotate in.mp4` would overwrite it while it is read.
        let inputFiles = InputFiles(found.inputs)
        let output = try EventOutput(
            format: outputFormat, includeInput: inputs.count > 1, exec: exec, path: self.output, inputs: inputFiles,
            execTimeout: execTimeout > 0 ? execTimeout : nil)
        if let annotate {
            try inputFiles.checkNotAnInput(annotate)
            if let path = self.output, MediaDriver.sameFile(path, annotate) {
                throw OutputError(description: "-o and --annotate name the same file \(annotate); give two files")
            }
            try MediaDriver.checkAnnotationExtension(annotate, video: true)
            try OutputFile.checkWritable(annotate)
        }
        // Live sources end on Ctrl-C or SIGTERM with every output finished (StopSignals).
        let stop = found.inputs.contains { $0.kind == .live } ? StopSignals.install() : nil
        defer { stop?.remove() }
        // The commands are stopped with vision-tasks, never left running on their own.
        let commands = output.commands
        stop?.onSignal { signal, again in
            if again {
                commands.killAll()
                _ = commands.waitForAll(seconds: 1)
            } else {
                commands.terminateAll(with: signal)
            }
        }
        let commandSignals = stop == nil && exec != nil ? CommandSignals.install(commands) : nil
        defer { commandSignals?.remove() }
        var opened = false
        for (index, input) in found.inputs.enumerated() {
            if let signal = stop?.signalReceived {
                MediaDriver.report("\(StopSignals.name(signal)): \(found.inputs.count - index) input(s) not read")
                break
            }
            do {
                if input.kind == .live, let stop {
                    try processLive(input, modelPath: modelPath, output: output, stop: stop, opened: &opened)
                } else {
                    try process(input, modelPath: modelPath, output: output, opened: &opened)
                }
            } catch let error as OutputError {
                // A full disk or a closed pipe fails every later event too: stop here.
                try? output.finish(createIfEmpty: false)
                throw error
            } catch {
                // A MediaIOError or MediaError names its file already ("x.mp4: x.mp4: is empty" before).
                let named = error is MediaIOError || error is MediaError || error is InputError
                MediaDriver.report(named ? "\(error)" : "\(input.path): \(error)")
                ok = false
            }
        }
        try output.finish(createIfEmpty: opened)
        if !ok || output.failedCommands > 0 { throw ExitCode(1) }
    }

    /// The recognizer's options for `mode`, with the command's hand, mirroring and smoothing settings.
    private func recognizerOptions(modelPath: String, mode: RunningMode) -> GestureRecognizerOptions {
        let options = GestureRecognizerOptions()
        hands.apply(to: options, modelPath: modelPath, mode: mode)
        options.inputIsMirrored = mirrored
        options.landmarkSmoothing = smooth ? HandLandmarkSmoothing() : nil
        return options
    }

    /// A live source: the recognizer in live-stream mode, events printed as their frames' results come.
    private func processLive(
        _ input: MediaInput, modelPath: String, output: EventOutput, stop: StopSignals, opened: inout Bool
    ) throws {
        let detector = try GestureEventDetector(options: eventOptions)
        var annotation: EventAnnotation?
        let run = LiveRun<GestureRecognizerResult>(stop: stop) { frame, result in
            let events = detector.process(result, imageWidth: frame.image.width, imageHeight: frame.image.height)
            for event in events { try output.emit(event, input: input.path) }
            try annotation?.append(frame, result: result, events: events)
        }
        let relay = LiveResultRelay<GestureRecognizerResult> { run.deliver($0, $1) }
        let options = recognizerOptions(modelPath: modelPath, mode: .liveStream)
        options.gestureRecognizerLiveStreamDelegate = relay
        let recognizer = try GestureRecognizer(options: options)
        let task = LiveTaskHandle(
            submit: { image, timestamp in try recognizer.recognizeAsync(image: image, timestampInMilliseconds: timestamp) },
            droppedFrameCount: { recognizer.droppedFrameCount }, waitUntilIdle: { recognizer.waitUntilIdle() },
            delegate: relay)
        try run.read(
            input, options: live, appliesDisplayRotation: !ignoreDisplayRotation, task: task,
            opened: { info in
                // The output is created (or truncated) only once a source could be opened.
                opened = true
                annotation = annotate.map { EventAnnotation(path: $0, framesPerSecond: info.framesPerSecond) }
            },
            finish: { try annotation?.finish() })
    }

    private func process(_ input: MediaInput, modelPath: String, output: EventOutput, opened: inout Bool) throws {
        let recognizer = try GestureRecognizer(options: recognizerOptions(modelPath: modelPath, mode: .video))
        let detector = try GestureEventDetector(options: eventOptions)
        let reader = input.kind == .stream
            ? try LiveSourceReader.open(input, options: live, appliesDisplayRotation: !ignoreDisplayRotation, token: nil)
            : try VideoReader(path: input.path, appliesDisplayRotation: !ignoreDisplayRotation)
        // The output is created (or truncated) only now that an input could be opened.
        try output.open()
        opened = true
        var annotation = annotate.map { EventAnnotation(path: $0, framesPerSecond: reader.info.framesPerSecond) }
        while let frame = try reader.nextFrame() {
            let result = try recognizer.recognize(
                videoFrame: MPImage(pixelBuffer: frame.image), timestampInMilliseconds: frame.timestampInMilliseconds)
            let events = detector.process(result, imageWidth: frame.image.width, imageHeight: frame.image.height)
            for event in events { try output.emit(event, input: input.path) }
            try annotation?.append(frame, result: result, events: events)
        }
        if let failure = reader.failure { throw failure }
        try annotation?.finish()
    }
}
