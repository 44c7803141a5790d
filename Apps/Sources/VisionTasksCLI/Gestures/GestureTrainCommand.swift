import ArgumentParser
import Foundation
@_spi(Apps) import VisionTasks

/// `vision-tasks gesture train DIR -o BUNDLE`: MediaPipe Model Maker's gesture recognizer
/// training, as one command; the work is `GestureDataset` and `CustomGestureClassifier`'s.
struct GestureTrainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract: "Train a classifier of your own gestures and write a gesture recognizer bundle.",
        discussion: """
            FOLDER holds one subfolder per gesture, named after it, with photos (JPEG, PNG) or \
            videos of hands making it, and one subfolder named none with hands making none of \
            them (MediaPipe Model Maker's layout; videos are VisionTasks' addition). Each image \
            and sampled video frame goes through the hand landmarker (one hand) and the gesture \
            embedder of --model; images without a hand are left out. The samples are split \
            into training, validation and test parts, the classifier is trained with Model \
            Maker's defaults (the options keep Model Maker's names), evaluated on the test part, \
            and written into a copy of --model as custom_gesture_classifier.tflite. \
            `vision-tasks gesture --model BUNDLE ...` and MediaPipe's GestureRecognizer then \
            recognise the new gestures (a custom gesture needs a score of at least \
            --score-threshold, else the canned gesture is reported).

            Examples:
              vision-tasks gesture train gestures/ -o my_gestures.task
              vision-tasks gesture train gestures/ -o my.task --epochs 30 --layer-widths 64
              vision-tasks gesture train gestures/ -o my.task --cache gestures.json
              vision-tasks gesture --model my_gestures.task clip.mp4
            """)

    @Argument(help: ArgumentHelp("The dataset folder: one subfolder per label, one of them none.", valueName: "folder"))
    var folder: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The gesture recognizer bundle to write (.task).", valueName: "bundle"))
    var output: String

    @Option(help: ArgumentHelp("Also write the classifier alone (custom_gesture_classifier.tflite).", valueName: "file"))
    var classifierOutput: String?

    @OptionGroup var model: TaskModelOption
    @OptionGroup var dataset: GestureDatasetArguments

    @Option(parsing: .unconditional, help: "Passes over the training samples.")
    var epochs: Int = 10

    @Option(parsing: .unconditional, help: "Samples per training step.")
    var batchSize: Int = 2

    @Option(parsing: .unconditional, help: "The Adam optimiser's learning rate in the first epoch.")
    var learningRate: Float = 0.001

    @Option(parsing: .unconditional, help: "The learning rate is multiplied by this after each epoch.")
    var lrDecay: Float = 0.99

    @Option(parsing: .unconditional, help: "The focal loss' gamma (0: cross-entropy).")
    var gamma: Float = 2

    @Option(parsing: .unconditional, help: "The fraction of values the dropout layers drop while training.")
    var dropout: Float = 0.05

    @Option(help: ArgumentHelp("Widths of hidden layers, comma-separated (default: none).", valueName: "widths"))
    var layerWidths: String?

    @Flag(help: "Shuffle the training samples anew every epoch (Model Maker's shuffle, off by default).")
    var shuffle = false

    @Option(parsing: .unconditional, help: "The fraction of each label's samples kept for validation.")
    var validationSplit: Double = 0.1

    @Option(parsing: .unconditional, help: "The fraction of each label's samples kept for the final test.")
    var testSplit: Double = 0.1

    @Option(parsing: .unconditional, help: "The seed of every random choice: the same seed and data give the same bundle.")
    var seed: UInt64 = 0

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The score a custom gesture needs to be reported, written into the classifier.", valueName: "score"))
    var scoreThreshold: Float = CustomGestureClassifier.defaultScoreThreshold

    /// The training options from the flags.
    func trainingOptions() throws -> GestureTrainingOptions {
        var widths: [Int] = []
        if let layerWidths {
            for part in layerWidths.split(separator: ",", omittingEmptySubsequences: false) {
                guard let width = Int(part.trimmingCharacters(in: .whitespaces)) else {
                    throw ValidationError("--layer-widths takes whole numbers separated by commas, such as 64,32; got \(layerWidths)")
                }
                widths.append(width)
            }
        }
        return GestureTrainingOptions(
            modelOptions: .init(dropoutRate: dropout, layerWidths: widths),
            hyperparameters: .init(
                learningRate: learningRate, batchSize: batchSize, epochs: epochs, learningRateDecay: lrDecay,
                gamma: gamma, shuffle: shuffle, seed: seed))
    }

    func validate() throws {
        do {
            try trainingOptions().validate()
        } catch let error as GestureTrainingError {
            throw ValidationError(Self.flagNames(in: "\(error)"))
        }
        for (flag, value) in [("--validation-split", validationSplit), ("--test-split", testSplit)]
        where !(value.isFinite && value >= 0 && value < 1) {
            throw ValidationError("\(flag) must be at least 0 and below 1, got \(value)")
        }
        guard validationSplit + testSplit < 1 else {
            throw ValidationError("--validation-split and --test-split together must be below 1, to leave samples to train on")
        }
        guard scoreThreshold.isFinite else { throw ValidationError("--score-threshold must be a number, got \(scoreThreshold)") }
        guard output.hasSuffix(".task") else { throw ValidationError("-o must name a .task file, got \(output)") }
        let directory = (output as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.isEmpty ? "." : directory, isDirectory: &isDirectory),
            isDirectory.boolValue
        else {
            throw ValidationError("the folder of -o \(output) does not exist")
        }
    }

    /// A library message about options, with the flags' names instead of the properties'.
    static func flagNames(in message: String) -> String {
        let names = [
            ("learningRateDecay", "--lr-decay"), ("learningRate", "--learning-rate"), ("batchSize", "--batch-size"),
            ("epochs", "--epochs"), ("gamma", "--gamma"), ("dropoutRate", "--dropout"), ("layerWidths", "--layer-widths"),
        ]
        var result = message
        for (property, flag) in names where result.hasPrefix(property + " ") {
            result = flag + result.dropFirst(property.count)
        }
        return result
    }

    func run() throws {
        let options = try trainingOptions()
        let modelPath = try model.modelPath(default: .gestureRecognizerBundle)
        let scanned = try dataset.scan(folder)
        try checkOutputs(modelPath: modelPath, scanned: scanned)

        let data = try dataset.load(scanned, modelPath: modelPath, threads: model.threads)
        let (train, validation, test) = try data.split(validationFraction: validationSplit, testFraction: testSplit, seed: seed)
        MediaDriver.report("training on \(train.count) samples, validating on \(validation.count), testing on \(test.count)")
        let classifier = try CustomGestureClassifier.train(
            trainData: train, validationData: validation, options: options
        ) { epoch in
            print(GestureReport.line(for: epoch))
        }
        if test.count > 0 {
            print("")
            print(GestureReport.text(for: try classifier.evaluate(test), title: "test"))
        } else {
            MediaDriver.report("no test samples (--test-split \(testSplit)): nothing to evaluate on")
        }
        let url = URL(fileURLWithPath: output)
        try classifier.exportModel(to: url, baseModelPath: modelPath, scoreThreshold: scoreThreshold)
        MediaDriver.report("wrote \(output): \(classifier.labels.count) gestures (\(classifier.labels.joined(separator: ", "))) on \(modelPath)")
        if let classifierOutput {
            try classifier.exportClassifier(to: URL(fileURLWithPath: classifierOutput), scoreThreshold: scoreThreshold)
            MediaDriver.report("wrote \(classifierOutput)")
        }
    }

    /// Refuses, before any model runs, outputs that would overwrite an input: the base bundle,
    /// the cache, a file of the dataset, or each other.
    private func checkOutputs(modelPath: String, scanned: GestureDatasetFolder) throws {
        var inputs = [modelPath] + scanned.files.map { scanned.url(of: $0).path }
        if let cache = dataset.cache { inputs.append(cache) }
        var outputs = [output]
        if let classifierOutput { outputs.append(classifierOutput) }
        for out in outputs {
            for input in inputs where CustomGestureClassifier.isSameFile(out, input) {
                throw GestureTrainingError.outputOverwritesInput(output: out, input: input)
            }
        }
        if let classifierOutput, classifierOutput == output || CustomGestureClassifier.isSameFile(classifierOutput, output) {
            throw ValidationError("--classifier-output and -o name the same file")
        }
    }
}
