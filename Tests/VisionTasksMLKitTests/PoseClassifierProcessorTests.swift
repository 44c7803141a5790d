import Foundation
import MediaIO
import TestSupport
import VisionTasks
@testable import VisionTasksMLKit
import XCTest

/// ML Kit's `PoseClassifierProcessor`, ported: `Pose`s from the stream-mode detector on the
/// shared squat clip, samples added from code, ML Kit's strings.
final class PoseClassifierProcessorTests: XCTestCase {
    /// The clip's poses from `PoseDetector` in `.stream` mode, one per frame (nil: none).
    static let clipPoses = Result { () throws -> [Pose?] in
        let options = PoseDetectorOptions()
        options.modelAssetPath = try SharedTestData.installedModel("pose_landmarker_full.task").path
        let poseDetector = PoseDetector.poseDetector(options: options)
        let reader = try VideoReader(path: try SharedTestData.file("media/video_pose_squats.mp4").path)
        var poses: [Pose?] = []
        while let frame = try reader.nextFrame() {
            let image = VisionImage(buffer: frame.image)
            image.timestampInMilliseconds = frame.timestampInMilliseconds
            poses.append(try poseDetector.results(in: image).first)
        }
        return poses
    }

    /// A leave-out test: samples from the clip's second and third squats (frames 27-64: standing
    /// 27 and 41-51, bottom 32-36 and 57-62, labelled from MediaPipe's reference landmarks as in
    /// `SquatCountingTests`), added from code as the façade's `Pose`s; the processor then reads
    /// the first squat (frames 0-26), which no sample comes from, and counts it.
    func testTheFirstSquatCountsWithSamplesFromTheOthers() throws {
        let poses = try Self.clipPoses.get()
        XCTAssertEqual(poses.count, 65)
        let labels = [27] + Array(41...51) + Array(32...36) + Array(57...62)
        let samples = try labels.map { frame in
            try PoseSample(name: "frame\(frame)", className: (32...36).contains(frame) || frame >= 57 ? "squats_down" : "squats_up",
                           pose: try XCTUnwrap(poses[frame]))
        }
        let poseClassifierProcessor = try PoseClassifierProcessor(
            samples: samples, isStreamMode: true, poseClasses: ["squats_down"])
        var lines: [[String]] = []
        for pose in poses[0...26] { lines.append(poseClassifierProcessor.getPoseResult(pose)) }
        print("ML Kit processor, first squat: \(lines.map { $0.joined(separator: " | ") })")
        XCTAssertEqual(lines.first, ["", "squats_up : 1.00 confidence"])
        // Standing again at the end: counted once, "up" nearly unanimous in the smoothed window.
        XCTAssertEqual(lines.last?.first, "squats_down : 1 reps")
        XCTAssertTrue(lines.last?.last?.hasPrefix("squats_up : 0.9") == true || lines.last?.last == "squats_up : 1.00 confidence",
                      "\(lines.last ?? [])")
        XCTAssertEqual(lines.filter { $0.first == "" }.count, lines.firstIndex { $0.first == "squats_down : 1 reps" },
                       "no count before the squat is left")
        XCTAssertTrue(lines.contains { $0.last == "squats_down : 1.00 confidence" }, "the bottom of the squat")
        let result = poseClassifierProcessor.process(nil)
        XCTAssertEqual(result.repetitionCounts, ["squats_down": 1])
        XCTAssertEqual(result.lastRepetitionResult, "squats_down : 1 reps")
        XCTAssertNil(result.confidenceResult, "no pose: ML Kit adds no confidence line")

        // Not stream mode: no smoothing, no counting, the confidence line only.
        let single = try PoseClassifierProcessor(samples: samples, isStreamMode: false, poseClasses: ["squats_down"])
        XCTAssertEqual(single.getPoseResult(poses[10]), ["squats_down : 1.00 confidence"])
        XCTAssertEqual(single.getPoseResult(nil), [])
    }

    /// The façade's pixels are `PoseSample`'s conversion of the same landmarks, bit for bit, so a
    /// pose classifies the same through either API.
    func testTheFacadesPositionsAreTheCoresPixels() throws {
        var points: [NormalizedLandmark] = []
        for i in 0..<33 {
            let f = Float(i)
            points.append(NormalizedLandmark(x: 0.1 + f * 0.0231, y: 0.9 - f * 0.0173, z: f * 0.011 - 0.2, presence: 0.9))
        }
        let pose = PoseConversion.pose(from: points, imageWidth: 720, imageHeight: 1280, mirrored: false)
        let sample = try PoseSample(name: "p", className: "c", landmarks: points, imageWidth: 720, imageHeight: 1280)
        XCTAssertEqual(pose.classificationLandmarks, sample.landmarks)
        XCTAssertEqual(try PoseSample(name: "p", className: "c", pose: pose), sample)
    }

    func testBadSamplesAndClassesAreErrors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("processor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let csv = folder.appendingPathComponent("fitness_pose_samples.csv")
        try Data("a.png,pushups_up,1,2\n".utf8).write(to: csv)
        XCTAssertThrowsError(try PoseClassifierProcessor(samplesFile: csv.path, isStreamMode: true, poseClasses: ["pushups_down"])) { error in
            XCTAssertEqual(error as? PoseClassificationError, .wrongColumnCount(line: 1, found: 4))
        }
        let poses = try Self.clipPoses.get()
        let samples = try (0..<12).map { try PoseSample(name: "\($0)", className: "squats_up", pose: try XCTUnwrap(poses[$0 + 41])) }
            + (0..<5).map { try PoseSample(name: "d\($0)", className: "squats_down", pose: try XCTUnwrap(poses[$0 + 32])) }
        XCTAssertThrowsError(try PoseClassifierProcessor(samples: samples, isStreamMode: true, poseClasses: ["pushups_down"])) { error in
            XCTAssertEqual(error as? PoseClassificationError, .unknownClass("pushups_down", known: ["squats_down", "squats_up"]))
        }
        XCTAssertThrowsError(try PoseClassifierProcessor(samples: samples, isStreamMode: true, poseClasses: ["squats_down"])) { error in
            XCTAssertEqual(error as? PoseClassificationError,
                           .unreachableThreshold(className: "squats_down", maximumConfidence: 5, enterThreshold: 6))
        }
    }
}
