import Foundation

/// Classifies the poses of a video or live stream and counts repetitions per person: ML Kit's
/// pose classification sample (`PoseClassifierProcessor` in stream mode: classifier, smoothing,
/// repetition counters) for every person `PoseLandmarker` tracks.
///
/// <!-- snippet-prelude: let samplesCSV = "samples.csv"
/// let landmarker = try PoseLandmarker(modelPath: "pose_landmarker_full.task")
/// let frame = try MPImage(pixels: [UInt8](repeating: 0, count: 12), width: 2, height: 2, format: .rgb8)
/// let timestamp = 0 -->
/// ```swift
/// let classifier = try PoseClassifier(samples: try PoseSample.samples(contentsOfCSVFile: samplesCSV))
/// var options = PoseClassificationTrackerOptions()
/// options.countedClasses = ["squats_down"]
/// let tracker = try PoseClassificationTracker(classifier: classifier, options: options)
///
/// let result = try landmarker.detect(videoFrame: frame, timestampInMilliseconds: timestamp)
/// for person in tracker.process(result, imageWidth: frame.width, imageHeight: frame.height) {
///     print(person.poseIdentifier, person.smoothedClassification.maxConfidenceClass ?? "",
///           person.repetitionCounts["squats_down"] ?? 0)
/// }
/// ```
///
/// Feed it the results of one stream (video or live-stream mode) in timestamp order, with the
/// pixel size of the frames (the classifier works in pixels, as ML Kit's). Per person, each
/// frame: the pose is classified, the classification smoothed (`EMASmoothing`) and the smoothed
/// classification given to one `RepetitionCounter` per counted class. People are told apart by
/// the results' `poseIdentifiers`; a result without them (image mode) is read by pose index.
///
/// A person missing from a frame keeps their counts; as in ML Kit's sample (which feeds its
/// smoothing an empty result when no pose is found), their smoothing receives an empty
/// classification for each such frame while they can still be resumed (see
/// `PoseClassificationTrackerOptions.resumeWithinMilliseconds`). The tracker remembers at most
/// `maximumPeople` people: beyond that, the one unseen the longest is forgotten. A result whose
/// timestamp is before the previous one starts a new stream (as `reset()`).
///
/// Differences from ML Kit's sample: several people; every counter sees every frame (ML Kit's
/// loop stops at the first counter that counted in a frame, to beep once); the façade
/// `VisionTasksMLKit.PoseClassifierProcessor` keeps ML Kit's behaviour exactly.
///
/// Safe to call from any thread; calls are processed one at a time.
public final class PoseClassificationTracker: @unchecked Sendable {
    /// The classifier.
    public let classifier: PoseClassifier
    /// The settings.
    public let options: PoseClassificationTrackerOptions
    /// The classes whose repetitions are counted, by name.
    public let countedClasses: [String]
    /// The most people remembered (256).
    public static let maximumPeople = 256

    private struct Person {
        var smoothing: EMASmoothing
        var counters: [RepetitionCounter]
        var lastSeen: Int
        /// The order in which people were last seen, for forgetting the one unseen longest.
        var lastFrame: Int
    }

    private let lock = NSLock()
    private let freshSmoothing: EMASmoothing
    private let freshCounters: [RepetitionCounter]
    private var people: [Int: Person] = [:]
    private var lastTimestamp: Int?
    private var frameCount = 0

    /// A tracker with `classifier` and `options`. Throws `PoseClassificationError`:
    /// `.unknownClass` for a counted class the samples lack, `.unreachableThreshold` for one
    /// whose confidence can never rise above the enter threshold (too few samples of it),
    /// `.invalidOptions`.
    public init(classifier: PoseClassifier, options: PoseClassificationTrackerOptions = PoseClassificationTrackerOptions()) throws {
        let threshold = options.repetitions.enterThreshold
        let counted: [String]
        if let requested = options.countedClasses {
            for name in requested { try classifier.checkCountable(name, enterThreshold: threshold) }
            counted = Array(Set(requested)).sorted()
        } else {
            counted = classifier.classNames.filter { Float(classifier.maximumConfidence(of: $0)) > threshold }
        }
        if let window = options.resumeWithinMilliseconds, window < 0 {
            throw PoseClassificationError.invalidOptions(
                "PoseClassificationTrackerOptions: resumeWithinMilliseconds must be at least 0 (or nil).")
        }
        freshSmoothing = try EMASmoothing(options: options.smoothing)
        freshCounters = try counted.map { try RepetitionCounter(className: $0, options: options.repetitions) }
        self.classifier = classifier
        self.options = options
        self.countedClasses = counted
    }

    /// Reads one frame's pose landmarker result (with the pixel size of the frame it came
    /// from) and returns each person's classification and counts, in the order of
    /// `result.landmarks`.
    @discardableResult
    public func process(_ result: PoseLandmarkerResult, imageWidth: Int, imageHeight: Int) -> [TrackedPoseClassification] {
        let time = result.timestampInMilliseconds
        let keys = result.poseIdentifiers.count == result.landmarks.count
            ? result.poseIdentifiers : Array(result.landmarks.indices)
        return lock.withLock {
            if let lastTimestamp, time < lastTimestamp { people.removeAll() }
            lastTimestamp = time
            frameCount += 1
            let present = Set(keys)
            resumeLostPerson(present: present, time: time)

            var output: [TrackedPoseClassification] = []
            for (key, landmarks) in zip(keys, result.landmarks) {
                var person = people[key] ?? Person(
                    smoothing: freshSmoothing, counters: freshCounters, lastSeen: time, lastFrame: frameCount)
                let classification = classifier.classify(landmarks: landmarks, imageWidth: imageWidth, imageHeight: imageHeight)
                let smoothed = person.smoothing.smooth(classification)
                var completed: [String] = []
                for index in person.counters.indices {
                    let before = person.counters[index].count
                    if person.counters[index].add(smoothed) > before { completed.append(person.counters[index].className) }
                }
                person.lastSeen = time
                person.lastFrame = frameCount
                people[key] = person
                output.append(TrackedPoseClassification(
                    poseIdentifier: key, classification: classification, smoothedClassification: smoothed,
                    repetitionCounts: Self.counts(person.counters), completedRepetitions: completed))
            }
            for (key, person) in people where !present.contains(key) && isResumable(person, at: time) {
                _ = people[key]?.smoothing.smooth(PoseClassification())
            }
            if people.count > Self.maximumPeople {
                let oldest = people.sorted { $0.value.lastFrame < $1.value.lastFrame }.prefix(people.count - Self.maximumPeople)
                for (key, _) in oldest { people[key] = nil }
            }
            return output
        }
    }

    /// The repetitions counted so far for the person with `poseIdentifier` (after a resume,
    /// under their newest identifier), nil for a person not remembered.
    public func repetitionCounts(ofPose poseIdentifier: Int) -> [String: Int]? {
        lock.withLock { people[poseIdentifier].map { Self.counts($0.counters) } }
    }

    /// The repetitions counted so far for every person remembered, by pose identifier.
    public var allRepetitionCounts: [Int: [String: Int]] {
        lock.withLock { people.mapValues { Self.counts($0.counters) } }
    }

    /// Forgets every person: the next result starts a new stream.
    public func reset() {
        lock.withLock {
            people.removeAll()
            lastTimestamp = nil
        }
    }

    /// When exactly one identifier of this frame is new and exactly one remembered person is
    /// missing from it and can be resumed, the new identifier takes that person's state.
    private func resumeLostPerson(present: Set<Int>, time: Int) {
        guard options.resumeWithinMilliseconds != nil else { return }
        let new = present.filter { people[$0] == nil }
        guard new.count == 1, let newKey = new.first else { return }
        let lost = people.filter { !present.contains($0.key) && isResumable($0.value, at: time) }
        guard lost.count == 1, let person = lost.first else { return }
        people[person.key] = nil
        people[newKey] = person.value
    }

    private func isResumable(_ person: Person, at time: Int) -> Bool {
        guard let window = options.resumeWithinMilliseconds else { return false }
        let (elapsed, overflow) = time.subtractingReportingOverflow(person.lastSeen)
        return !overflow && elapsed <= window
    }

    private static func counts(_ counters: [RepetitionCounter]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: counters.map { ($0.className, $0.count) })
    }
}
