import ArgumentParser
import Foundation
@_spi(Apps) import VisionTasks

/// `vision-tasks gesture evaluate BUNDLE DIR`: how well a bundle's gesture classifier labels a
/// dataset folder.
struct GestureEvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Measure a gesture recognizer bundle's classifier on a dataset folder.",
        discussion: """
            Reads FOLDER as `gesture train` does (one subfolder per label, one named none), \
            embeds its hands with the bundle's own hand landmarker and gesture embedder, and \
            prints the accuracy of the bundle's custom classifier (its canned one when it has \
            none), each label's precision and recall, and the confusion matrix. A sample's \
            label is the classifier's highest-scoring class, before the score threshold. \
            Folder names match the classifier's labels ignoring case (none counts as None).

            Examples:
              vision-tasks gesture evaluate my_gestures.task held_out/
              vision-tasks gesture evaluate gesture_recognizer.task canned_test/
            """)

    @Argument(help: ArgumentHelp("The gesture recognizer bundle (.task): a path, or a name in the model folder.", valueName: "bundle"))
    var bundle: String

    @Argument(help: ArgumentHelp("The dataset folder: one subfolder per label, one of them none.", valueName: "folder"))
    var folder: String

    @Option(parsing: .unconditional, help: "Threads each model runs on, 1 to 4 per active core; the default is one per active core.")
    var threads: Int = BaseOptions.defaultNumThreads

    @OptionGroup var dataset: GestureDatasetArguments

    func validate() throws {
        try TaskModelOption.checkThreads(threads)
    }

    func run() throws {
        let modelPath = try TaskModelOption.locate(bundle)
        let scanned = try dataset.scan(folder)
        if let cache = dataset.cache, CustomGestureClassifier.isSameFile(cache, modelPath) {
            throw GestureTrainingError.outputOverwritesInput(output: cache, input: modelPath)
        }
        let data = try dataset.load(scanned, modelPath: modelPath, threads: threads)
        print(GestureReport.text(for: try GestureEvaluation(modelPath: modelPath, dataset: data), title: "\(folder):"))
    }
}
