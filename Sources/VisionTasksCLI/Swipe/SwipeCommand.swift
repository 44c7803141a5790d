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
            the stream goes on (the exit status is 1 at the end).

            Examples:
              vision-tasks swipe clip.mp4
              vision-tasks swipe --output-format jsonl --num-hands 2 clip.mp4
              vision-tasks swipe --exec 'xdotool key $([ $VISION_TASKS_EVENT = swipeLeft ] && echo Left || echo Right)' clip.mp4
              vision-tasks swipe --annotate events.mp4 clip.mp4
              vision-tasks swipe --input-format v4l2 /dev/video0 --exec 'xdotool key Right'
              vision-tasks swipe --mirrored http://phone.local:8080/video.mjpg

            Live sources (a camera with --input-format v4l2, rtsp://, http:// MJPEG, udp:// \
            MPEG-TS...) run the recognizer in live-stream mode in real time: a frame that \
            arrives while the previous one is in work is dropped; events are printed as they \
            happen. Ctrl-C or SIGTERM ends the run cleanly (the annotated video completed, the \
            frame counts printed on stderr, exit status 0).
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

    @Option(help: "Frames of evidence an event needs.")
    var minFrames = GestureEventOptions().minimumFrames

    @Option(help: ArgumentHelp("Sideways travel of a swipe, in hand sizes.", valueName: "hand sizes"))
    var swipeDistance = GestureEventOptions().swipeDistance

    @Option(help: ArgumentHelp("Time within which a swipe travels its distance.", valueName: "ms"))
    var swipeWindow = GestureEventOptions().swipeWindowMilliseconds

    @Option(help: ArgumentHelp("Quiet time of a hand after each of its events.", valueName: "ms"))
    var cooldown = GestureEventOptions().cooldownMilliseconds

    mutating func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one video") }
        if annotate != nil && inputs.count > 1 { throw ValidationError("--annotate takes one input") }
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
        let output = try EventOutput(format: outputFormat, includeInput: inputs.count > 1, exec: exec, path: self.output)
        // Live sources end on Ctrl-C or SIGTERM with every output finished (StopSignals).
        let stop = found.inputs.contains { $0.kind == .live } ? StopSignals.install() : nil
        defer { stop?.remove() }
        for (index, input) in found.inputs.enumerated() {
            if let signal = stop?.signalReceived {
                MediaDriver.report("\(StopSignals.name(signal)): \(found.inputs.count - index) input(s) not read")
                break
            }
            do {
                if input.kind == .live, let stop {
                    try processLive(input, modelPath: modelPath, output: output, stop: stop)
                } else {
                    try process(input, modelPath: modelPath, output: output)
                }
            } catch {
                MediaDriver.report(error is MediaError ? "\(error)" : "\(input.path): \(error)")
                ok = false
            }
        }
        output.finish()
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
    private func processLive(_ input: MediaInput, modelPath: String, output: EventOutput, stop: StopSignals) throws {
        let detector = try GestureEventDetector(options: eventOptions)
        var annotation: EventAnnotation?
        let run = LiveRun<GestureRecognizerResult>(stop: stop) { frame, result in
            let events = detector.process(result, imageWidth: frame.image.width, imageHeight: frame.image.height)
            for event in events { output.emit(event, input: input.path) }
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
            opened: { info in annotation = annotate.map { EventAnnotation(path: $0, framesPerSecond: info.framesPerSecond) } },
            finish: { try annotation?.finish() })
    }

    private func process(_ input: MediaInput, modelPath: String, output: EventOutput) throws {
        let recognizer = try GestureRecognizer(options: recognizerOptions(modelPath: modelPath, mode: .video))
        let detector = try GestureEventDetector(options: eventOptions)
        let reader = input.kind == .stream
            ? try LiveSourceReader.open(input, options: live, appliesDisplayRotation: !ignoreDisplayRotation, token: nil)
            : try VideoReader(path: input.path, appliesDisplayRotation: !ignoreDisplayRotation)
        var annotation = annotate.map { EventAnnotation(path: $0, framesPerSecond: reader.info.framesPerSecond) }
        while let frame = try reader.nextFrame() {
            let result = try recognizer.recognize(
                videoFrame: MPImage(pixelBuffer: frame.image), timestampInMilliseconds: frame.timestampInMilliseconds)
            let events = detector.process(result, imageWidth: frame.image.width, imageHeight: frame.image.height)
            for event in events { output.emit(event, input: input.path) }
            try annotation?.append(frame, result: result, events: events)
        }
        if let failure = reader.failure { throw failure }
        try annotation?.finish()
    }
}
