import ArgumentParser
import Foundation
import MediaIO
import VisionTasks

/// `vision-tasks pose samples FOLDER -o samples.csv`: ML Kit's pose samples CSV from the user's
/// own examples, one folder per class.
///
/// `vision-tasks pose` reads its positional arguments as inputs, so `samples` cannot be an
/// ordinary subcommand of it: `VisionTasksCommand.main` sends `pose samples ...` here, and the
/// usage line says so.
struct PoseSamplesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples",
        abstract: "Make ML Kit's pose samples CSV from folders of example photos and videos, one folder per class.",
        usage: "vision-tasks pose samples <folder> [-o <samples.csv>] [--video-fps <fps>] [--model <model>] [--threads <threads>]",
        discussion: """
            FOLDER holds one folder per pose class, named after the class (FOLDER/squats_up/, \
            FOLDER/squats_down/, ...), each with photos (JPEG, PNG) and videos of that pose, in \
            subfolders too. Each photo, and each video's frames taken --video-fps times a second, \
            runs through the pose landmarker (image mode, one person) and becomes one line of ML \
            Kit's samples CSV: name, class, then x, y, z of the 33 landmarks in pixels (z in the \
            scale of x), the columns and order ML Kit's pose classification sample loads. Names \
            are the file's path inside its class folder; video frames add @ and the frame's time \
            ("clip.mp4@1200ms"). Examples without a pose are counted and listed on stderr, not \
            written. Files that cannot be read are listed too, and make the exit status 1.

            Examples:
              vision-tasks pose samples workout/ -o samples.csv
              vision-tasks pose samples --video-fps 2 workout/ -o samples.csv
            """)

    @Argument(help: ArgumentHelp("The folder of examples: FOLDER/<class>/<photos and videos>.", valueName: "folder"))
    var folder: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the CSV to this file instead of stdout.", valueName: "file"))
    var output: String?

    @Option(parsing: .unconditional, help: "Frames taken from each second of a video (0.01 to 1000).")
    var videoFps: Double = 5

    @OptionGroup var model: TaskModelOption

    mutating func validate() throws {
        guard videoFps.isFinite, videoFps >= 0.01, videoFps <= 1000 else {
            throw ValidationError("--video-fps must be between 0.01 and 1000, got \(videoFps)")
        }
        if output?.isEmpty == true { throw ValidationError("--output needs a file name, not an empty string") }
        if folder.isEmpty { throw ValidationError("the folder is an empty string") }
    }

    func run() throws {
        let examples = try PoseSampleFolder(path: folder)
        for note in examples.notes { MediaDriver.report(note) }
        let inputs = InputFiles(paths: examples.classes.flatMap { $0.inputs.map(\.path) })
        if let output {
            try inputs.checkNotAnInput(output)
            try OutputFile.checkWritable(output)
        }
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = try model.modelPath(default: .poseLandmarkerFullBundle)
        options.baseOptions.numThreads = model.threads
        options.runningMode = .image
        options.numPoses = 1
        let landmarker = try PoseLandmarker(options: options)

        var samples: [PoseSample] = []
        var withoutPose: [String] = []
        var problems = examples.problems
        var examplesSeen = 0
        for classFolder in examples.classes {
            for input in classFolder.inputs {
                let name = PoseSampleFolder.sampleName(of: input, in: classFolder)
                func add(_ image: MPImage, name: String) throws {
                    examplesSeen += 1
                    let result = try landmarker.detect(image: image)
                    guard let pose = result.landmarks.first else {
                        withoutPose.append("\(classFolder.className)/\(name)")
                        return
                    }
                    samples.append(try PoseSample(
                        name: name, className: classFolder.className, landmarks: pose,
                        imageWidth: image.width, imageHeight: image.height))
                }
                do {
                    if input.kind == .video {
                        try PoseSampleFolder.sampledFrames(of: input.path, framesPerSecond: videoFps) { pixels, time in
                            try add(MPImage(pixelBuffer: pixels), name: "\(name)@\(time)ms")
                        }
                    } else {
                        try add(try MPImage(contentsOfFile: input.path), name: name)
                    }
                } catch {
                    problems.append("\(input.path): \(error)")
                }
            }
        }
        for problem in problems { MediaDriver.report(problem) }
        if !withoutPose.isEmpty {
            MediaDriver.report(
                "\(withoutPose.count) of \(examplesSeen) example\(examplesSeen == 1 ? "" : "s") had no pose and are not in the CSV: "
                    + withoutPose.joined(separator: ", "))
        }
        guard !samples.isEmpty else {
            MediaDriver.report("no example had a pose: nothing written")
            throw ExitCode(1)
        }
        let text = PoseSample.csv(samples)
        if let output {
            try OutputFile.write(Array(text.utf8), to: output, inputs: inputs)
        } else {
            let out = OutputFile.standardOutput()
            try out.write(Data(text.utf8))
        }
        for line in Self.summary(samples, writtenTo: output ?? "stdout") { MediaDriver.report(line) }
        if !problems.isEmpty { throw ExitCode(1) }
    }

    /// What was written, per class, and what the classifier will make of it.
    static func summary(_ samples: [PoseSample], writtenTo destination: String) -> [String] {
        var counts: [String: Int] = [:]
        for sample in samples { counts[sample.className, default: 0] += 1 }
        let perClass = counts.keys.sorted().map { "\($0): \(counts[$0] ?? 0)" }.joined(separator: ", ")
        var lines = ["\(samples.count) pose sample\(samples.count == 1 ? "" : "s") (\(perClass)) written to \(destination)"]
        if counts.count < 2 {
            lines.append("note: one class only; a classifier needs samples of at least two classes")
        }
        let vote = PoseClassifierOptions().meanDistanceTopK
        let threshold = RepetitionCounterOptions().enterThreshold
        for name in counts.keys.sorted() where Float(counts[name] ?? 0) <= threshold {
            let count = counts[name] ?? 0
            lines.append("note: class \(name) has \(count) sample\(count == 1 ? "" : "s"): its confidence can never rise above the "
                + "counting threshold \(Int(threshold)) (\(vote) or more samples per class suit the classifier's vote of \(vote))")
        }
        return lines
    }
}
