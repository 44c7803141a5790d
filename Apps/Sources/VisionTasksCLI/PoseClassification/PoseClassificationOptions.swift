import ArgumentParser
import VisionTasks

/// `vision-tasks pose --classify samples.csv [--count CLASS]`: ML Kit's pose classification and
/// repetition counting over the pose landmarker's results.
struct PoseClassificationOptions: ParsableArguments {
    @Option(
        name: .customLong("classify"),
        help: ArgumentHelp(
            "Classify every pose with ML Kit's k-nearest-neighbour pose classifier over the samples of this CSV (ML Kit's format; `vision-tasks pose samples` makes one from your photos and videos) and count repetitions: each record gets the classification and the counts so far; text output ends each video or stream with the counts.",
            valueName: "samples.csv"))
    var samplesPath: String?

    @Option(
        name: .customLong("count"),
        help: ArgumentHelp(
            "With --classify: count the repetitions of this class of the samples, e.g. squats_down (repeat for several; default: every class with enough samples).",
            valueName: "class"))
    var countedClasses: [String] = []

    mutating func validate() throws {
        if samplesPath == nil, !countedClasses.isEmpty {
            throw ValidationError("--count needs --classify samples.csv: the classes are those of the samples")
        }
    }

    /// The tracker these options describe, with the samples read and checked now (a bad CSV or
    /// an unknown class fails before any input is read); nil without --classify.
    func makeTracker() throws -> PoseClassificationTracker? {
        guard let samplesPath else { return nil }
        let classifier = try PoseClassifier(samples: try PoseSample.samples(contentsOfCSVFile: samplesPath))
        var options = PoseClassificationTrackerOptions()
        if !countedClasses.isEmpty { options.countedClasses = countedClasses }
        return try PoseClassificationTracker(classifier: classifier, options: options)
    }
}
