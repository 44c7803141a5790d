import Foundation
import VisionTasks

/// ML Kit's pose classification sample's `PoseClassifierProcessor`: a `Pose` in, the pose's
/// class and the repetition counts out, so that a port of the Android sample reads the same.
///
/// <!-- snippet-prelude: import VisionTasks
/// let samplesCSV = "fitness_pose_samples.csv"
/// let frame = VisionImage(buffer: try PixelBuffer(width: 2, height: 2, format: .rgb8, bytes: [UInt8](repeating: 0, count: 12))) -->
/// ```swift
/// let poseDetector = PoseDetector.poseDetector(options: PoseDetectorOptions())   // .stream
/// let poseClassifierProcessor = try PoseClassifierProcessor(
///     samplesFile: samplesCSV, isStreamMode: true, poseClasses: ["pushups_down", "squats_down"])
///
/// let pose = try poseDetector.results(in: frame).first   // nil: nobody in the frame
/// let classificationResult = poseClassifierProcessor.getPoseResult(pose)
/// print(classificationResult)   // ["squats_down : 2 reps", "squats_down : 0.90 confidence"]
/// ```
///
/// As in ML Kit's sample: each pose is classified by a `PoseClassifier` over the samples (ML
/// Kit's defaults). In stream mode the classification is smoothed (`EMASmoothing`, also when
/// no pose was found) and one `RepetitionCounter` per pose class reads it; when one counts a
/// repetition the later counters skip that frame (ML Kit's loop stops there, to beep once).
/// ML Kit loads its samples from an app asset and names the counted classes in constants; here
/// the initialiser takes both. `getPoseResult` returns ML Kit's strings; `process` the same as
/// values.
///
/// Safe to call from any thread; calls are processed one at a time.
public final class PoseClassifierProcessor: @unchecked Sendable {
    /// What one pose gave (the values behind `getPoseResult`'s strings).
    public struct Result: Sendable, Hashable {
        /// The classification: smoothed in stream mode, this pose's own otherwise (empty when no
        /// pose was given).
        public var classification: PoseClassification
        /// Repetitions counted so far per pose class (stream mode; empty otherwise).
        public var repetitionCounts: [String: Int]
        /// ML Kit's `lastRepResult`: `"squats_down : 2 reps"` for the latest repetition counted,
        /// `""` before the first (stream mode; nil otherwise).
        public var lastRepetitionResult: String?
        /// ML Kit's confidence line, `"squats_down : 0.90 confidence"` (the most confident class
        /// and its confidence over `confidenceRange`); nil when no pose was given.
        public var confidenceResult: String?
    }

    /// Whether poses come from a stream (smoothing and counting) or are independent images.
    public let isStreamMode: Bool
    /// The classifier.
    public let poseClassifier: PoseClassifier

    private let lock = NSLock()
    private var emaSmoothing: EMASmoothing
    private var repCounters: [RepetitionCounter]
    private var lastRepResult = ""

    /// A processor over the samples of the ML Kit samples CSV at `samplesFile` (ML Kit's
    /// `POSE_SAMPLES_FILE`), counting the repetitions of `poseClasses` in stream mode (ML Kit's
    /// `POSE_CLASSES`). Throws `PoseClassificationError` for a CSV that cannot be read or holds
    /// a bad line (ML Kit skips such lines silently), samples no classifier can use, or a pose
    /// class the samples lack or can never count.
    public convenience init(samplesFile: String, isStreamMode: Bool, poseClasses: [String]) throws {
        try self.init(
            samples: try PoseSample.samples(contentsOfCSVFile: samplesFile), isStreamMode: isStreamMode,
            poseClasses: poseClasses)
    }

    /// A processor over `samples`, counting the repetitions of `poseClasses` in stream mode.
    public init(samples: [PoseSample], isStreamMode: Bool, poseClasses: [String]) throws {
        let classifier = try PoseClassifier(samples: samples)
        let thresholds = RepetitionCounterOptions()
        for name in poseClasses { try classifier.checkCountable(name, enterThreshold: thresholds.enterThreshold) }
        // One counter per class, in the order given (ML Kit's loop order).
        var seen = Set<String>()
        repCounters = try poseClasses.filter { seen.insert($0).inserted }.map {
            try RepetitionCounter(className: $0, options: thresholds)
        }
        emaSmoothing = try EMASmoothing()
        poseClassifier = classifier
        self.isStreamMode = isStreamMode
    }

    /// The largest confidence a class can have (ML Kit's `confidenceRange()`, 10).
    public var confidenceRange: Int { poseClassifier.confidenceRange }

    /// ML Kit's `getPoseResult`: in stream mode first the latest repetition line
    /// (`"squats_down : 2 reps"`, `""` before any), then, when a pose was given, the most
    /// confident class (`"squats_down : 0.90 confidence"`). `pose` nil: no pose in this frame
    /// (ML Kit passes a pose without landmarks).
    public func getPoseResult(_ pose: Pose?) -> [String] {
        let result = process(pose)
        return [result.lastRepetitionResult, result.confidenceResult].compactMap { $0 }
    }

    /// The same as `getPoseResult`, as values.
    public func process(_ pose: Pose?) -> Result {
        lock.withLock {
            var classification = pose.map { poseClassifier.classify($0) } ?? PoseClassification()
            var lastRepetition: String?
            if isStreamMode {
                classification = emaSmoothing.smooth(classification)
                if pose != nil {
                    for index in repCounters.indices {
                        let before = repCounters[index].count
                        let after = repCounters[index].add(classification)
                        if after > before {
                            lastRepResult = "\(repCounters[index].className) : \(after) reps"
                            break
                        }
                    }
                }
                lastRepetition = lastRepResult
            }
            var confidence: String?
            if pose != nil, let name = classification.maxConfidenceClass {
                let fraction = classification.confidence(of: name) / Float(confidenceRange)
                confidence = "\(name) : \(String(format: "%.2f", Double(fraction))) confidence"
            }
            let counts = isStreamMode
                ? Dictionary(uniqueKeysWithValues: repCounters.map { ($0.className, $0.count) }) : [:]
            return Result(
                classification: classification, repetitionCounts: counts, lastRepetitionResult: lastRepetition,
                confidenceResult: confidence)
        }
    }
}
