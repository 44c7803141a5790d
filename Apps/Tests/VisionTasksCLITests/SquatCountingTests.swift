import ArgumentParser
import Foundation
import MediaIO
import TestSupport
import VisionTasks
@testable import VisionTasksCLI
import XCTest

/// Counting squats on `video_pose_squats.mp4` (65 frames at 5 fps: two complete squats and a
/// third that the clip ends in, half way up) with samples made by `vision-tasks pose samples`,
/// and on variants of the clip made here: mirrored, slowed down (each frame twice), cropped, and
/// two copies back to back. docs/pose-classification.md quotes what these print.
///
/// **Samples, and why the test is fair.** The clip is the only squat footage in the shared data,
/// so the samples are frames of it, used leave-one-repetition-out: the clip is cut into its
/// three repetitions (frames 0-26, 27-51, 52-64: each from the standing before its descent to
/// the standing after), and every frame is classified with samples from the *other* two only.
/// No frame is ever classified against a sample from its own squat. The sample frames were
/// labelled from MediaPipe's reference landmarks of the clip (`reference/video_pose_squats.jsonl`),
/// not from anything this code computes: `squats_up` where the hips are at least 0.145 of the
/// image height above the knees (standing: frames 0-2, 17-27, 41-51), `squats_down` where at
/// most 0.05 (the bottom: 8-12, 32-36, 57-62). They are written as JPEG photos into
/// FOLDER/squats_up/ and FOLDER/squats_down/ and turned into the CSV by the command, as a user
/// would. The variants use the same samples (made from the unchanged clip), so mirroring,
/// cropping and slowing test what the classifier and the counter do with a changed picture.
///
/// The pose landmarker runs once per variant for the whole class (video mode, one pose, as the
/// ML Kit façade runs it); the tests reuse the landmarks.
final class SquatCountingTests: XCTestCase {
    /// The repetitions: frame ranges of the clip.
    static let repetitions = [0...26, 27...51, 52...64]
    static let upFrames = Array(0...2) + Array(17...27) + Array(41...51)
    static let downFrames = Array(8...12) + Array(32...36) + Array(57...62)

    /// One run of the pose landmarker over a sequence of the clip's frames (changed or not).
    struct Run: Sendable {
        var results: [PoseLandmarkerResult]
        /// For each result, the clip's frame it was made from.
        var sources: [Int]
        var width: Int
        var height: Int
    }

    struct Fixture: Sendable {
        /// The samples the command wrote, and each one's frame.
        var samples: [PoseSample]
        var sampleFrames: [Int]
        /// The clip twice, back to back; the first 65 results are the clip's own.
        var twice: Run
        var mirrored: Run
        var slowed: Run
        var cropped: Run

        /// The clip alone.
        var clip: Run {
            Run(results: Array(twice.results.prefix(65)), sources: Array(twice.sources.prefix(65)),
                width: twice.width, height: twice.height)
        }

        /// The classifier for the frames of `repetition`: samples of the other repetitions.
        func classifier(leavingOut repetition: Int) throws -> PoseClassifier {
            let range = SquatCountingTests.repetitions[repetition]
            return try PoseClassifier(samples: zip(samples, sampleFrames).filter { !range.contains($0.1) }.map(\.0))
        }
    }

    static let fixture = Result { try makeFixture() }

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
    }

    private static func makeFixture() throws -> Fixture {
        let clip = try SharedTestData.file("media/video_pose_squats.mp4").path
        let model = try SharedTestData.installedModel("pose_landmarker_full.task").path
        let reader = try VideoReader(path: clip)
        var frames: [PixelBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame.image) }
        guard frames.count == 65 else { throw FixtureError(description: "expected 65 frames, got \(frames.count)") }

        // The examples folder and the command.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("squat-samples-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (className, indices) in [("squats_up", upFrames), ("squats_down", downFrames)] {
            let classFolder = folder.appendingPathComponent("examples/\(className)")
            try FileManager.default.createDirectory(at: classFolder, withIntermediateDirectories: true)
            for index in indices {
                try ImageEncoder.write(frames[index], to: classFolder.appendingPathComponent(String(format: "frame%02d.jpg", index)).path)
            }
        }
        let csv = folder.appendingPathComponent("samples.csv").path
        let command = try PoseSamplesCommand.parse([folder.appendingPathComponent("examples").path, "-o", csv, "--model", model])
        try command.run()
        let samples = try PoseSample.samples(contentsOfCSVFile: csv)
        let sampleFrames = try samples.map { sample -> Int in
            guard let index = Int(sample.name.dropFirst("frame".count).prefix(2)) else {
                throw FixtureError(description: "unexpected sample name \(sample.name)")
            }
            return index
        }

        func run(_ sequence: [(image: PixelBuffer, source: Int)]) throws -> Run {
            let options = PoseLandmarkerOptions()
            options.baseOptions.modelAssetPath = model
            options.runningMode = .video
            let landmarker = try PoseLandmarker(options: options)
            var results: [PoseLandmarkerResult] = []
            for (index, frame) in sequence.enumerated() {
                results.append(try landmarker.detect(videoFrame: MPImage(pixelBuffer: frame.image), timestampInMilliseconds: index * 200))
            }
            return Run(results: results, sources: sequence.map(\.source),
                       width: sequence[0].image.width, height: sequence[0].image.height)
        }
        let indexed = frames.enumerated().map { (image: $0.element, source: $0.offset) }
        let crop = (x: 100, y: 160, width: 600, height: 920)
        return Fixture(
            samples: samples, sampleFrames: sampleFrames,
            twice: try run(indexed + indexed),
            mirrored: try run(indexed.map { (image: $0.image.reoriented(.upMirrored), source: $0.source) }),
            slowed: try run(indexed.flatMap { [$0, $0] }),
            cropped: try run(try indexed.map { (image: try cropped($0.image, crop), source: $0.source) }))
    }

    /// The rectangle `rect` of an RGB image.
    private static func cropped(_ image: PixelBuffer, _ rect: (x: Int, y: Int, width: Int, height: Int)) throws -> PixelBuffer {
        let source = image.convertedToRGB8()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rect.width * rect.height * 3)
        for y in rect.y..<(rect.y + rect.height) {
            let start = y * source.bytesPerRow + rect.x * 3
            bytes += source.bytes[start..<(start + rect.width * 3)]
        }
        return try PixelBuffer(width: rect.width, height: rect.height, format: .rgb8, bytes: bytes)
    }

    /// ML Kit's `PoseClassifierProcessor` loop in stream mode over `run` (classify, smooth, count
    /// `squats_down`), each frame classified leave-one-repetition-out: the count, whether a
    /// squat was entered and not left at the end, and the frame (result index) of each count.
    private func count(_ run: Run, _ fixture: Fixture) throws -> (count: Int, inSquat: Bool, countedAt: [Int]) {
        let classifiers = try (0..<3).map { try fixture.classifier(leavingOut: $0) }
        var smoothing = try EMASmoothing()
        var counter = try RepetitionCounter(className: "squats_down")
        var countedAt: [Int] = []
        for (index, (result, source)) in zip(run.results, run.sources).enumerated() {
            guard let pose = result.landmarks.first else {
                _ = smoothing.smooth(PoseClassification())
                continue
            }
            let fold = try XCTUnwrap(Self.repetitions.firstIndex { $0.contains(source) })
            let classification = classifiers[fold].classify(landmarks: pose, imageWidth: run.width, imageHeight: run.height)
            let before = counter.count
            if counter.add(smoothing.smooth(classification)) > before { countedAt.append(index) }
        }
        return (counter.count, counter.isInPose, countedAt)
    }

    func testTheSamplesCommandMadeSamplesOfEveryLabelledFrame() throws {
        let fixture = try Self.fixture.get()
        XCTAssertEqual(fixture.sampleFrames.sorted(), (Self.upFrames + Self.downFrames).sorted(), "every labelled frame has a pose")
        XCTAssertEqual(Dictionary(grouping: fixture.samples, by: \.className).mapValues(\.count),
                       ["squats_up": Self.upFrames.count, "squats_down": Self.downFrames.count])
        for repetition in 0..<3 {
            let classifier = try fixture.classifier(leavingOut: repetition)
            print("squats: classifier for repetition \(repetition + 1): \(classifier.sampleCounts) samples from the other two")
            XCTAssertGreaterThan(classifier.maximumConfidence(of: "squats_down"), 6)
        }
    }

    func testTheClipCountsTwoSquatsAndEndsInTheThird() throws {
        let fixture = try Self.fixture.get()
        let clip = fixture.clip
        XCTAssertEqual(clip.results.filter { $0.landmarks.count == 1 }.count, 65, "a pose on every frame")
        let counted = try count(clip, fixture)
        print("squats: clip: \(counted.count) counted at frames \(counted.countedAt), in a squat at the end: \(counted.inSquat)")
        XCTAssertEqual(counted.count, 2)
        XCTAssertTrue(counted.inSquat, "the third squat is entered and not left")
        // Each squat counts while the person rises out of it (frames 13-17 and 38-41).
        XCTAssertEqual(counted.countedAt.count, 2)
        XCTAssertTrue((13...20).contains(counted.countedAt.first ?? -1), "\(counted.countedAt)")
        XCTAssertTrue((38...45).contains(counted.countedAt.last ?? -1), "\(counted.countedAt)")
    }

    func testMirroredSlowedAndCroppedClipsCountTwo() throws {
        let fixture = try Self.fixture.get()
        for (name, run) in [("mirrored", fixture.mirrored), ("slowed (each frame twice)", fixture.slowed),
                            ("cropped to 600x920", fixture.cropped)] {
            XCTAssertEqual(run.results.filter { $0.landmarks.count == 1 }.count, run.results.count, "\(name): a pose on every frame")
            let counted = try count(run, fixture)
            print("squats: \(name): \(counted.count) counted at frames \(counted.countedAt), in a squat at the end: \(counted.inSquat)")
            XCTAssertEqual(counted.count, 2, name)
            XCTAssertTrue(counted.inSquat, name)
        }
    }

    /// Back to back, the third squat of the first copy ends at the cut (the second copy starts
    /// standing), so ML Kit's counter counts it there: 2 + 1 + 2, and the last copy's third
    /// squat is entered and not left.
    func testTwoCopiesBackToBackCountFourSquatsAndTheFirstCopysPartialOne() throws {
        let fixture = try Self.fixture.get()
        let counted = try count(fixture.twice, fixture)
        print("squats: two copies: \(counted.count) counted at frames \(counted.countedAt), in a squat at the end: \(counted.inSquat)")
        XCTAssertEqual(counted.count, 5)
        XCTAssertTrue(counted.inSquat)
        XCTAssertEqual(counted.countedAt.count, 5)
        if counted.countedAt.count > 2 {
            XCTAssertTrue((65...72).contains(counted.countedAt[2]), "the partial squat counts at the cut: \(counted.countedAt)")
        }
    }

    /// The library against the independent reference (TestSupport/ReferencePoseClassifier: plain
    /// arithmetic, no call into the library) on every frame of the clip and of its variants,
    /// with the three leave-one-out classifiers and with all samples: identical confidences.
    func testConfidencesMatchTheIndependentReferenceOnEveryFrame() throws {
        let fixture = try Self.fixture.get()
        func reference(_ samples: [PoseSample]) -> ReferencePoseClassifier {
            ReferencePoseClassifier(samples: samples.map { $0.landmarks.map { (x: $0.x, y: $0.y, z: $0.z) } }, classes: samples.map(\.className))
        }
        var compared = 0, split = 0
        let classifiers = try (0..<3).map { try fixture.classifier(leavingOut: $0) } + [try PoseClassifier(samples: fixture.samples)]
        let references = classifiers.map { reference($0.samples) }
        for run in [fixture.clip, fixture.mirrored, fixture.cropped] {
            for result in run.results {
                guard let pose = result.landmarks.first else { continue }
                // The reference gets the pixels as ML Kit's detector would give them.
                let pixels = pose.map { (x: $0.x * Float(run.width), y: $0.y * Float(run.height), z: $0.z * Float(run.width)) }
                for (classifier, reference) in zip(classifiers, references) {
                    let ours = classifier.classify(landmarks: pose, imageWidth: run.width, imageHeight: run.height)
                    XCTAssertEqual(ours.confidences, reference.classify(pixels))
                    compared += 1
                    if ours.confidences.count > 1 { split += 1 }
                }
            }
        }
        print("squats: \(compared) classifications identical to the reference (\(split) with both classes in the vote)")
        XCTAssertEqual(compared, 4 * 3 * 65)
        XCTAssertGreaterThan(split, 10, "frames between standing and squatting test the vote")
    }

    /// `PoseClassificationTracker` on the clip twice (a real stream with pose identifiers) gives
    /// what ML Kit's loop gives with the same classifier, frame by frame.
    func testTheTrackerFollowsMLKitsLoopOnTheClip() throws {
        let fixture = try Self.fixture.get()
        let run = fixture.twice
        let classifier = try fixture.classifier(leavingOut: 2)
        var options = PoseClassificationTrackerOptions()
        options.countedClasses = ["squats_down"]
        let tracker = try PoseClassificationTracker(classifier: classifier, options: options)
        var smoothing = try EMASmoothing()
        var counter = try RepetitionCounter(className: "squats_down")
        var identifiers = Set<Int>()
        for result in run.results {
            let tracked = tracker.process(result, imageWidth: run.width, imageHeight: run.height)
            XCTAssertEqual(tracked.count, result.landmarks.count)
            guard let person = tracked.first, let pose = result.landmarks.first else {
                _ = smoothing.smooth(PoseClassification())
                continue
            }
            identifiers.insert(person.poseIdentifier)
            let expected = smoothing.smooth(classifier.classify(landmarks: pose, imageWidth: run.width, imageHeight: run.height))
            counter.add(expected)
            XCTAssertEqual(person.smoothedClassification, expected)
            XCTAssertEqual(person.repetitionCounts, ["squats_down": counter.count])
        }
        print("squats: tracker over the clip twice: pose identifiers \(identifiers.sorted()), counts \(tracker.allRepetitionCounts)")
        XCTAssertEqual(tracker.allRepetitionCounts.values.map { $0["squats_down"] ?? 0 }.reduce(0, +), counter.count)
    }

    /// `vision-tasks pose --classify samples.csv --count squats_down` on the clip, with every
    /// sample the command made (a user's run: no leave-one-out here, the fairness is the tests'
    /// above): the text output ends with "squats_down: 2", the JSON lines carry each frame's
    /// classification and the running count, and the annotated video has every frame.
    func testTheCommandClassifiesAndCountsTheClip() throws {
        let fixture = try Self.fixture.get()
        let clip = try SharedTestData.file("media/video_pose_squats.mp4").path
        let model = try SharedTestData.installedModel("pose_landmarker_full.task").path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("squat-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = folder.appendingPathComponent("samples.csv").path
        try Data(PoseSample.csv(fixture.samples).utf8).write(to: URL(fileURLWithPath: csv))
        let text = folder.appendingPathComponent("counts.txt").path, lines = folder.appendingPathComponent("counts.jsonl").path
        let annotated = folder.appendingPathComponent("counts.mp4").path
        let common = [clip, "--classify", csv, "--count", "squats_down", "--model", model, "--no-progress"]
        try PoseCommand.parse(common + ["--output-format", "text", "-o", text, "--annotate", annotated]).run()
        try PoseCommand.parse(common + ["-o", lines]).run()

        let textLines = try String(contentsOfFile: text, encoding: .utf8).split(separator: "\n")
        print("squats: the command's text output ends: \(textLines.suffix(2).joined(separator: " / "))")
        XCTAssertEqual(textLines.count, 66, "65 frames and the counts")
        XCTAssertEqual(textLines.last.map(String.init), "\(clip): squats_down: 2")
        XCTAssertTrue(textLines.first?.contains("| squats_up") ?? false, "\(textLines.first ?? "")")

        let records = try String(contentsOfFile: lines, encoding: .utf8).split(separator: "\n").map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        XCTAssertEqual(records.count, 65)
        let counts = records.map { record -> Int? in
            let pose = record["pose"] as? [String: Any]
            let person = (pose?["classifications"] as? [[String: Any]])?.first
            return (person?["repetitionCounts"] as? [String: Int])?["squats_down"]
        }
        XCTAssertEqual(counts.first, 0)
        XCTAssertEqual(counts.last, 2)
        XCTAssertEqual(counts.compactMap { $0 }.count, 65, "every frame has the running count")
        let first = (records.first?["pose"] as? [String: Any])?["classifications"] as? [[String: Any]]
        let confidences = (first?.first?["classification"] as? [String: Any])?["confidences"] as? [String: Double]
        XCTAssertEqual(confidences?.values.reduce(0, +), 10, "the vote of the 10 nearest samples")
        XCTAssertEqual(try VideoReader(path: annotated).info.declaredFrameCount, 65)
    }

    /// A class the samples lack, --count without --classify, and a broken CSV: errors that say so,
    /// before any frame is read.
    func testTheCommandRefusesBadClassificationArguments() throws {
        let fixture = try Self.fixture.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("squat-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = folder.appendingPathComponent("samples.csv").path, broken = folder.appendingPathComponent("broken.csv").path
        try Data(PoseSample.csv(fixture.samples).utf8).write(to: URL(fileURLWithPath: csv))
        try Data("frame00,squats_up,1,2,3\n".utf8).write(to: URL(fileURLWithPath: broken))
        let missing = folder.appendingPathComponent("missing.mp4").path
        XCTAssertThrowsError(try PoseCommand.parse([missing, "--count", "squats_down"])) { error in
            XCTAssertTrue(PoseCommand.message(for: error).contains("--count needs --classify"), "\(error)")
        }
        XCTAssertThrowsError(try PoseCommand.parse([missing, "--classify", csv, "--api", "mlkit"]))
        XCTAssertThrowsError(try PoseCommand.parse([missing, "--classify", csv, "--count", "pushups_down"]).run()) { error in
            XCTAssertTrue("\(error)".contains("pushups_down"), "\(error)")
            XCTAssertTrue("\(error)".contains("squats_down"), "the known classes are listed: \(error)")
        }
        XCTAssertThrowsError(try PoseCommand.parse([missing, "--classify", broken]).run()) { error in
            XCTAssertTrue("\(error)".contains("line 1"), "\(error)")
        }
    }

    /// ML Kit's own samples: `fitness_pose_samples.csv` of googlesamples/mlkit
    /// (`android/vision-quickstart/app/src/main/assets/pose/`, 812 photos of other people doing
    /// push-ups and squats), named by `VISION_TASKS_MLKIT_SAMPLES`; skipped without it (also under
    /// CI: the file is Google's, not part of the shared test data). With samples of other people,
    /// the fairest test there is: `PoseClassificationTracker` counts the clip and its variants.
    func testMLKitsOwnSamplesCountTheClipAndItsVariants() throws {
        guard let path = ProcessInfo.processInfo.environment["VISION_TASKS_MLKIT_SAMPLES"], !path.isEmpty else {
            throw XCTSkip("set VISION_TASKS_MLKIT_SAMPLES to ML Kit's fitness_pose_samples.csv (googlesamples/mlkit)")
        }
        let fixture = try Self.fixture.get()
        let samples = try PoseSample.samples(contentsOfCSVFile: path)
        let classifier = try PoseClassifier(samples: samples)
        print("squats: ML Kit's samples: \(classifier.sampleCounts)")
        var options = PoseClassificationTrackerOptions()
        options.countedClasses = ["pushups_down", "squats_down"]
        for (name, run, expected) in [("clip", fixture.clip, 2), ("mirrored", fixture.mirrored, 2),
                                      ("slowed (each frame twice)", fixture.slowed, 2), ("cropped to 600x920", fixture.cropped, 2),
                                      ("two copies", fixture.twice, 5)] {
            let tracker = try PoseClassificationTracker(classifier: classifier, options: options)
            var countedAt: [Int] = []
            for (index, result) in run.results.enumerated() {
                let people = tracker.process(result, imageWidth: run.width, imageHeight: run.height)
                if people.first?.completedRepetitions.isEmpty == false { countedAt.append(index) }
            }
            let counts = tracker.allRepetitionCounts.values.reduce(into: [String: Int]()) { total, person in
                for (className, count) in person { total[className, default: 0] += count }
            }
            print("squats: ML Kit's samples, \(name): \(counts) counted at frames \(countedAt)")
            XCTAssertEqual(counts["squats_down"], expected, name)
            XCTAssertEqual(counts["pushups_down"], 0, name)
        }
    }
}
