import Foundation
import VisionTasks
import XCTest

/// ML Kit's smoothing and repetition counter, and the tracker that runs them per person over
/// `PoseLandmarker` results.
final class PoseRepetitionTests: XCTestCase {
    private var poses = SyntheticPose(seed: 5)

    private func classification(_ values: [String: Float]) -> PoseClassification {
        PoseClassification(confidences: values)
    }

    func testSmoothingIsMLKitsWeightedMeanOverTheWindow() throws {
        var smoothing = try EMASmoothing()
        XCTAssertEqual(smoothing.smooth(classification(["down": 10])).confidences, ["down": 10])
        // Newest weight 1, the older 0.8: (0 + 10 × 0.8) / 1.8; "up" appears with 10.
        let second = smoothing.smooth(classification(["up": 10]))
        XCTAssertEqual(second.confidence(of: "down"), Float(8) / Float(1.8), accuracy: 1e-6)
        XCTAssertEqual(second.confidence(of: "up"), Float(10) / Float(1.8), accuracy: 1e-6)
        // After the window (10) is full of "up", "down" has left it.
        var last = second
        for _ in 0..<10 { last = smoothing.smooth(classification(["up": 10])) }
        XCTAssertEqual(last.confidences, ["up": 10])
        // An empty classification (no pose) fades the confidences.
        let faded = smoothing.smooth(PoseClassification())
        XCTAssertLessThan(faded.confidence(of: "up"), 10)
        smoothing.reset()
        XCTAssertEqual(smoothing.smooth(classification(["x": 3])).confidences, ["x": 3])

        var options = EMASmoothingOptions()
        options.windowSize = 0
        XCTAssertThrowsError(try EMASmoothing(options: options))
        options = EMASmoothingOptions()
        options.alpha = 1.5
        XCTAssertThrowsError(try EMASmoothing(options: options))
    }

    func testCounterCountsOnLeavingThePoseNotOnEnteringIt() throws {
        var counter = try RepetitionCounter(className: "down")
        let sequence: [Float] = [0, 5, 6, 6.5, 9, 5, 4, 3.9, 0, 7, 10, 4.5, 2, 8, 9]
        var counts: [Int] = []
        for value in sequence { counts.append(counter.add(classification(["down": value]))) }
        // Enter above 6 (6 itself does not), count below 4 (4 itself does not); the last
        // repetition is entered and never left: not counted.
        XCTAssertEqual(counts, [0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2])
        XCTAssertTrue(counter.isInPose)
        counter.reset()
        XCTAssertEqual(counter.count, 0)
        XCTAssertFalse(counter.isInPose)
        var options = RepetitionCounterOptions()
        options.exitThreshold = 7
        XCTAssertThrowsError(try RepetitionCounter(className: "down", options: options)) { error in
            guard case .invalidOptions = error as? PoseClassificationError else { return XCTFail("\(error)") }
        }
    }

    /// A result with one pose per (identifier, depth); `frame` 640x480 pixels.
    private func result(_ people: [(id: Int, depth: Float)], at time: Int, identifiers: Bool = true) -> PoseLandmarkerResult {
        let landmarks = people.map { person in
            poses.landmarks(depth: person.depth, offset: SIMD2(160 + Float(person.id % 3) * 160, 240))
                .map { NormalizedLandmark(x: $0.x / 640, y: $0.y / 480, z: $0.z / 640) }
        }
        return PoseLandmarkerResult(
            landmarks: landmarks, worldLandmarks: landmarks.map { $0.map { Landmark(x: $0.x, y: $0.y, z: $0.z) } },
            timestampInMilliseconds: time, poseIdentifiers: identifiers ? people.map(\.id) : [])
    }

    private func classifier() throws -> PoseClassifier {
        try PoseClassifier(samples: try poses.samples("squats_up", depth: 0, count: 12) + poses.samples("squats_down", depth: 1, count: 12))
    }

    /// Depth of a squat over `frames` frames: standing, down, standing; then standing.
    private static func squat(_ frame: Int, of frames: Int) -> Float {
        frame >= frames ? 0 : (1 - cos(Float(frame) / Float(frames) * 2 * .pi)) / 2
    }

    func testTrackerCountsEachPersonByIdentifier() throws {
        var options = PoseClassificationTrackerOptions()
        options.countedClasses = ["squats_down"]
        let tracker = try PoseClassificationTracker(classifier: try classifier(), options: options)
        XCTAssertEqual(tracker.countedClasses, ["squats_down"])
        var time = 0
        var last: [TrackedPoseClassification] = []
        var completions: [Int: Int] = [:]
        // Person 1 squats three times (20 frames each), person 2 once over 40 frames; then both
        // stand.
        for frame in 0..<70 {
            let people = [(id: 1, depth: frame < 60 ? Self.squat(frame % 20, of: 20) : 0), (id: 2, depth: Self.squat(frame, of: 40))]
            last = tracker.process(result(people, at: time), imageWidth: 640, imageHeight: 480)
            for person in last where person.completedRepetitions == ["squats_down"] { completions[person.poseIdentifier, default: 0] += 1 }
            time += 33
        }
        XCTAssertEqual(last.map(\.poseIdentifier), [1, 2])
        XCTAssertEqual(last.map { $0.repetitionCounts["squats_down"] }, [3, 1])
        XCTAssertEqual(completions, [1: 3, 2: 1])
        XCTAssertEqual(last[0].classification.confidences.values.reduce(0, +), 10)
        XCTAssertEqual(tracker.repetitionCounts(ofPose: 2), ["squats_down": 1])
        XCTAssertEqual(tracker.allRepetitionCounts, [1: ["squats_down": 3], 2: ["squats_down": 1]])
        // An earlier timestamp starts a new stream.
        tracker.process(result([(id: 1, depth: 0)], at: 0), imageWidth: 640, imageHeight: 480)
        XCTAssertEqual(tracker.allRepetitionCounts, [1: ["squats_down": 0]])
    }

    func testAPersonFoundAgainUnderANewIdentifierKeepsTheCount() throws {
        let tracker = try PoseClassificationTracker(classifier: try classifier())
        XCTAssertEqual(tracker.countedClasses, ["squats_down", "squats_up"], "default: every class that can count")
        var time = 0
        func feed(_ id: Int?, depth: Float) -> [TrackedPoseClassification] {
            defer { time += 100 }
            return tracker.process(result(id.map { [(id: $0, depth: depth)] } ?? [], at: time), imageWidth: 640, imageHeight: 480)
        }
        for frame in 0..<28 { _ = feed(1, depth: Self.squat(frame, of: 20)) }
        XCTAssertEqual(tracker.repetitionCounts(ofPose: 1)?["squats_down"], 1)
        for _ in 0..<5 { _ = feed(nil, depth: 0) }       // lost for 0.5 s
        var last: [TrackedPoseClassification] = []
        for frame in 0..<28 { last = feed(7, depth: Self.squat(frame, of: 20)) }
        XCTAssertEqual(last.first?.poseIdentifier, 7)
        XCTAssertEqual(last.first?.repetitionCounts["squats_down"], 2, "the count goes on under the new identifier")
        XCTAssertNil(tracker.repetitionCounts(ofPose: 1))
        // Lost for longer than resumeWithinMilliseconds (2 s): a new person.
        for _ in 0..<25 { _ = feed(nil, depth: 0) }
        last = feed(9, depth: 0)
        XCTAssertEqual(last.first?.repetitionCounts["squats_down"], 0)
        XCTAssertEqual(tracker.allRepetitionCounts[7]?["squats_down"], 2, "the earlier person is remembered")
    }

    func testImageModeResultsAreReadByIndex() throws {
        let tracker = try PoseClassificationTracker(classifier: try classifier())
        let out = tracker.process(result([(id: 4, depth: 1), (id: 5, depth: 0)], at: 0, identifiers: false), imageWidth: 640, imageHeight: 480)
        XCTAssertEqual(out.map(\.poseIdentifier), [0, 1])
        XCTAssertEqual(out.map { $0.classification.maxConfidenceClass }, ["squats_down", "squats_up"])
    }

    func testAtMost256PeopleAreRemembered() throws {
        let tracker = try PoseClassificationTracker(classifier: try classifier())
        for frame in 0..<3 {
            let people = (0..<100).map { (id: frame * 100 + $0, depth: Float(0)) }
            XCTAssertEqual(tracker.process(result(people, at: frame * 100), imageWidth: 640, imageHeight: 480).count, 100)
        }
        let remembered = tracker.allRepetitionCounts
        XCTAssertEqual(remembered.count, PoseClassificationTracker.maximumPeople)
        XCTAssertTrue((100..<300).allSatisfy { remembered[$0] != nil }, "the people seen last are kept")
    }

    func testClassesThatCannotBeCountedAreRefused() throws {
        let samples = try poses.samples("squats_up", depth: 0, count: 12) + poses.samples("squats_down", depth: 1, count: 6)
        let classifier = try PoseClassifier(samples: samples)
        var options = PoseClassificationTrackerOptions()
        options.countedClasses = ["pushups_down"]
        XCTAssertThrowsError(try PoseClassificationTracker(classifier: classifier, options: options)) { error in
            XCTAssertEqual(error as? PoseClassificationError, .unknownClass("pushups_down", known: ["squats_down", "squats_up"]))
            XCTAssertEqual(String(describing: error),
                           "no pose sample has class \"pushups_down\"; the samples' classes are \"squats_down\", \"squats_up\"")
        }
        options.countedClasses = ["squats_down"]
        XCTAssertThrowsError(try PoseClassificationTracker(classifier: classifier, options: options)) { error in
            XCTAssertEqual(error as? PoseClassificationError,
                           .unreachableThreshold(className: "squats_down", maximumConfidence: 6, enterThreshold: 6))
        }
        // Without a list: only the classes that can count.
        XCTAssertEqual(try PoseClassificationTracker(classifier: classifier).countedClasses, ["squats_up"])
        options.countedClasses = nil
        options.resumeWithinMilliseconds = -1
        XCTAssertThrowsError(try PoseClassificationTracker(classifier: classifier, options: options))
    }
}
