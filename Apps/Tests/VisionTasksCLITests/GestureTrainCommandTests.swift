import ArgumentParser
import Foundation
import TestSupport
@testable import VisionTasksCLI
import VisionTasks
import XCTest

/// `vision-tasks gesture train` and `gesture evaluate`, and that `vision-tasks gesture FILE...`
/// still recognises, as a user runs them.
final class GestureTrainCommandTests: XCTestCase {
    func testGestureStillRecognisesFilesAndRoutesTrainAndEvaluate() throws {
        XCTAssertTrue(try VisionTasksCommand.parseAsRoot(["gesture", "photo.jpg", "--num-hands", "2"]) is GestureCommand)
        XCTAssertTrue(try VisionTasksCommand.parseAsRoot(["gesture", "--model", "m.task", "clip.mp4"]) is GestureCommand)
        XCTAssertTrue(try VisionTasksCommand.parseAsRoot(["gesture", "recognize", "photo.jpg"]) is GestureCommand)
        let train = try XCTUnwrap(try VisionTasksCommand.parseAsRoot(["gesture", "train", "dir", "-o", "x.task", "--epochs", "3"]) as? GestureTrainCommand)
        XCTAssertEqual(train.epochs, 3)
        XCTAssertEqual(try train.trainingOptions().hyperparameters.learningRate, 0.001)
        XCTAssertTrue(try VisionTasksCommand.parseAsRoot(["gesture", "evaluate", "b.task", "dir"]) is GestureEvaluateCommand)
    }

    /// Options training cannot use are refused before anything runs, under their flags' names.
    func testBadTrainingOptionsAreRefusedUpFront() {
        func message(_ arguments: [String]) -> String {
            do {
                _ = try VisionTasksCommand.parseAsRoot(["gesture", "train", "dir", "-o", "x.task"] + arguments)
                return "accepted"
            } catch {
                return VisionTasksCommand.message(for: error)
            }
        }
        XCTAssertTrue(message(["--learning-rate", "nan"]).contains("--learning-rate is nan"), message(["--learning-rate", "nan"]))
        XCTAssertTrue(message(["--learning-rate", "0"]).contains("--learning-rate is 0.0, but must be a number greater than 0"))
        XCTAssertTrue(message(["--epochs", "0"]).contains("--epochs is 0, but must be at least 1"))
        XCTAssertTrue(message(["--batch-size", "0"]).contains("--batch-size is 0"))
        XCTAssertTrue(message(["--dropout", "1.5"]).contains("--dropout is 1.5"))
        XCTAssertTrue(message(["--lr-decay", "-1"]).contains("--lr-decay"))
        XCTAssertTrue(message(["--layer-widths", "64,x"]).contains("--layer-widths takes whole numbers"))
        XCTAssertTrue(message(["--layer-widths", "64,0"]).contains("--layer-widths is 0"))
        XCTAssertTrue(message(["--validation-split", "0.6", "--test-split", "0.5"]).contains("together must be below 1"))
        XCTAssertTrue(message(["--test-split", "-0.1"]).contains("--test-split must be at least 0"))
        XCTAssertTrue(message(["--video-fps", "0"]).contains("--video-fps must be"))
        XCTAssertTrue(message(["--min-hand-detection-confidence", "2"]).contains("between 0 and 1"))
        XCTAssertEqual(message([]), "accepted")
        do {
            _ = try VisionTasksCommand.parseAsRoot(["gesture", "train", "dir", "-o", "x.tflite"])
            XCTFail("a bundle that is not .task")
        } catch {
            XCTAssertTrue(VisionTasksCommand.message(for: error).contains("-o must name a .task file"))
        }
    }

    /// Train on the shared photos and a clip, with a cache; the bundle recognises the new labels
    /// through `gesture --model`, `gesture evaluate` measures it, a second run with the same seed
    /// and cache writes the same bytes, and outputs over inputs are refused before any work.
    func testTrainEvaluateAndRecogniseWithTheTool() throws {
        let folder = try GestureTrainingData.makeFolder()
        let scratch = try GestureTrainingData.temporaryFolder("gesture-cli")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: scratch)
        }
        let base = try GestureTrainingData.referenceBundle()
        let bundle = scratch.appendingPathComponent("mine.task").path
        let cache = scratch.appendingPathComponent("cache.json").path
        let common = [
            "gesture", "train", folder.path, "--model", base, "--epochs", "25", "--learning-rate", "0.005",
            "--validation-split", "0.2", "--test-split", "0.3", "--cache", cache, "--threads", "2",
        ]
        let first = try BuiltTool.run(common + ["-o", bundle, "--verbose", "--classifier-output", scratch.appendingPathComponent("c.tflite").path], in: scratch)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(first.stdout.split(separator: "\n").filter { $0.hasPrefix("epoch ") }.count, 25, first.stdout)
        XCTAssertTrue(first.stdout.contains("epoch 25/25  loss "), first.stdout)
        XCTAssertTrue(first.stdout.contains("test accuracy"), first.stdout)
        XCTAssertTrue(first.stdout.contains("confusion matrix (rows: true label, columns: label given)"), first.stdout)
        XCTAssertTrue(first.stderr.contains("embedding the hands of 8 images and 1 videos in 3 labels: none, approve, reject"), first.stderr)
        XCTAssertTrue(first.stderr.contains("  approve: "), first.stderr)
        XCTAssertTrue(first.stderr.contains("wrote \(bundle)"), first.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("c.tflite").path))

        let again = scratch.appendingPathComponent("again.task").path
        let second = try BuiltTool.run(common + ["-o", again], in: scratch)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: again)), try Data(contentsOf: URL(fileURLWithPath: bundle)))

        let photo = try SharedTestData.file("media/hand_thumb_up_02_samples.jpg").path
        let recognised = try BuiltTool.run(["gesture", "--model", bundle, photo], in: scratch)
        XCTAssertEqual(recognised.status, 0, recognised.stderr)
        XCTAssertTrue(recognised.stdout.contains("\"categoryName\":\"approve\""), recognised.stdout)

        let evaluated = try BuiltTool.run(["gesture", "evaluate", bundle, folder.path, "--cache", cache, "--threads", "2"], in: scratch)
        XCTAssertEqual(evaluated.status, 0, evaluated.stderr)
        XCTAssertTrue(evaluated.stdout.contains("\(folder.path): accuracy"), evaluated.stdout)
        XCTAssertTrue(evaluated.stdout.contains("approve"), evaluated.stdout)

        // Outputs over inputs: the base bundle, the cache, a dataset photo. Refused at once.
        for output in [base, cache] {
            let copy = scratch.appendingPathComponent("link.task").path
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.createSymbolicLink(atPath: copy, withDestinationPath: output)
            let refused = try BuiltTool.run(common + ["-o", copy], in: scratch)
            XCTAssertEqual(refused.status, 1)
            XCTAssertTrue(refused.stderr.contains("would overwrite \(output)"), refused.stderr)
            XCTAssertFalse(refused.stderr.contains("embedding the hands"), refused.stderr)
        }
        let noNone = scratch.appendingPathComponent("no-none")
        try FileManager.default.createDirectory(at: noNone.appendingPathComponent("wave"), withIntermediateDirectories: true)
        let refused = try BuiltTool.run(["gesture", "train", noNone.path, "-o", scratch.appendingPathComponent("x.task").path, "--model", base], in: scratch)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("no label folder is named none"), refused.stderr)
    }

    /// Interrupted while embedding (SIGINT), the command leaves no bundle and no partial file.
    func testAnInterruptedTrainingLeavesNoBundle() throws {
        let folder = try GestureTrainingData.temporaryFolder("gesture-interrupt")
        defer { try? FileManager.default.removeItem(at: folder) }
        for label in ["none", "talk"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("data/\(label)"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: folder.appendingPathComponent("data/\(label)/clip.mp4"),
                withDestinationURL: try SharedTestData.file("media/video_upperbody_hands_talking.mp4"))
        }
        let output = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let child = try ChildProcess(
            executable: try BuiltTool.path(),
            arguments: ["gesture", "train", folder.appendingPathComponent("data").path, "-o", output.appendingPathComponent("x.task").path,
                        "--model", try GestureTrainingData.referenceBundle(), "--video-fps", "30", "--threads", "1"],
            stdout: folder.appendingPathComponent("stdout").path, stderr: folder.appendingPathComponent("stderr").path)
        XCTAssertTrue(child.wait(seconds: 120) { child.errorText().contains("embedding the hands") }, child.errorText())
        child.send(SIGINT)
        XCTAssertNotNil(child.wait(seconds: 30), "the command did not stop on SIGINT")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path), [])
    }
}
