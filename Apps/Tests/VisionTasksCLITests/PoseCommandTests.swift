import ArgumentParser
import Foundation
import MediaIO
import TestSupport
import VisionTasks
@testable import VisionTasksCLI
import XCTest

/// `vision-tasks pose`: JSON in the form of MediaPipe's reference files, masks as PNG, JSON
/// lines for videos.
final class PoseCommandTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pose-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Runs the command with `arguments` (plus an output file); returns the output text.
    private func run(_ arguments: [String], model: Bool = true) throws -> String {
        let output = dir.appendingPathComponent("out-\(UUID().uuidString)").path
        var all = arguments + ["--output", output, "--no-progress"]
        if model { all += ["--model", try SharedTestData.installedModel("pose_landmarker_full.task").path] }
        let command = try PoseCommand.parse(all)
        try command.run()
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func testImageJSONHasTheReferenceFormAndValues() throws {
        let name = "pose_two_people_walking_dog"
        let image = try SharedTestData.file("reference/\(name).pixels.png").path
        let object = try json(try run([image, "--num-poses", "2", "--segmentation-masks"]))
        XCTAssertEqual(object["file"] as? String, image)
        XCTAssertEqual(object["width"] as? Int, 370)
        XCTAssertEqual(object["height"] as? Int, 334)
        let pose = try XCTUnwrap(object["pose"] as? [String: Any])
        XCTAssertEqual(Set(pose.keys), ["landmarks", "worldLandmarks", "segmentationMasks"])

        let reference = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: try SharedTestData.file("reference/\(name).json")))
                as? [String: Any])
        let expected = try XCTUnwrap(reference["pose"] as? [String: Any])
        for key in ["landmarks", "worldLandmarks"] {
            let ours = try XCTUnwrap(pose[key] as? [[[String: Double]]])
            let theirs = try XCTUnwrap(expected[key] as? [[[String: Double]]])
            XCTAssertEqual(ours.count, theirs.count, key)
            for (a, b) in zip(ours, theirs) {
                XCTAssertEqual(a.count, 33)
                for (p, q) in zip(a, b) {
                    XCTAssertEqual(Set(p.keys), ["x", "y", "z", "visibility", "presence"])
                    for field in ["x", "y", "visibility", "presence"] {
                        XCTAssertEqual(try XCTUnwrap(p[field]), try XCTUnwrap(q[field]), accuracy: 2e-3, "\(key).\(field)")
                    }
                }
            }
        }
        let masks = try XCTUnwrap(pose["segmentationMasks"] as? [[String: Any]])
        let expectedMasks = try XCTUnwrap(expected["segmentationMasks"] as? [[String: Any]])
        XCTAssertEqual(masks.count, expectedMasks.count)
        for (a, b) in zip(masks, expectedMasks) {
            XCTAssertEqual(Set(a.keys), ["width", "height", "mean", "grid16"])
            XCTAssertEqual(a["width"] as? Int, 370)
            XCTAssertEqual(a["height"] as? Int, 334)
            XCTAssertEqual(try XCTUnwrap(a["mean"] as? Double), try XCTUnwrap(b["mean"] as? Double), accuracy: 2e-3)
            let grid = try XCTUnwrap(a["grid16"] as? [[Double]])
            let expectedGrid = try XCTUnwrap(b["grid16"] as? [[Double]])
            XCTAssertEqual(grid.count, 16)
            for (rowA, rowB) in zip(grid, expectedGrid) {
                XCTAssertEqual(rowA.count, 16)
                for (x, y) in zip(rowA, rowB) { XCTAssertEqual(x, y, accuracy: 0.01) }
            }
        }
    }

    func testMasksDirectoryGetsOnePNGPerPose() throws {
        let image = try SharedTestData.file("media/pose_three_people_upperbody.jpg").path
        let masks = dir.appendingPathComponent("masks")
        let object = try json(try run([image, "--num-poses", "2", "--masks", masks.path]))
        let pose = try XCTUnwrap(object["pose"] as? [String: Any])
        XCTAssertEqual((pose["segmentationMasks"] as? [Any])?.count, 2, "--masks implies mask summaries")
        for index in 0..<2 {
            let file = masks.appendingPathComponent("pose_three_people_upperbody_mask\(index).png").path
            let decoded = try ImageDecoder.decode(contentsOfFile: file).pixels
            XCTAssertEqual(decoded.width, 1049)
            XCTAssertEqual(decoded.height, 861)
            XCTAssertEqual(decoded.format, .gray8)
            XCTAssertGreaterThan(decoded.bytes.max() ?? 0, 200, "the person is in the mask")
        }
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: masks.appendingPathComponent("pose_three_people_upperbody_mask2.png").path))
    }

    func testNoMasksUnlessAskedAndEmptyResultsForNobody() throws {
        let photo = try json(try run([try SharedTestData.file("media/pose_fullbody_frisbee.jpg").path]))
        let pose = try XCTUnwrap(photo["pose"] as? [String: Any])
        XCTAssertEqual(Set(pose.keys), ["landmarks", "worldLandmarks"])
        XCTAssertEqual((pose["landmarks"] as? [Any])?.count, 1)
        let banana = try json(try run([try SharedTestData.file("media/neg_banana.jpg").path, "--segmentation-masks"]))
        let empty = try XCTUnwrap(banana["pose"] as? [String: Any])
        XCTAssertEqual((empty["landmarks"] as? [Any])?.count, 0)
        XCTAssertEqual((empty["worldLandmarks"] as? [Any])?.count, 0)
        XCTAssertNil(empty["segmentationMasks"], "left out when empty, as in the reference files")
    }

    func testVideoGivesJSONLinesPerFrame() throws {
        let video = try SharedTestData.file("media/video_pose_squats.mp4").path
        let lines = try run([video, "--num-poses", "2"]).split(separator: "\n")
        XCTAssertEqual(lines.count, 65)
        let reference = try String(contentsOf: try SharedTestData.file("reference/video_pose_squats.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        for (index, (line, expected)) in zip(lines, reference).enumerated() {
            let object = try json(String(line))
            let theirs = try json(String(expected))
            XCTAssertEqual(object["frame"] as? Int, index)
            XCTAssertEqual(object["timestampInMilliseconds"] as? Int, theirs["timestampInMilliseconds"] as? Int)
            let ours = try XCTUnwrap((object["pose"] as? [String: Any])?["landmarks"] as? [[[String: Double]]])
            let mediapipe = try XCTUnwrap((theirs["pose"] as? [String: Any])?["landmarks"] as? [[[String: Double]]])
            XCTAssertEqual(ours.count, mediapipe.count)
            if let a = ours.first, let b = mediapipe.first {
                XCTAssertEqual(try XCTUnwrap(a[0]["x"]), try XCTUnwrap(b[0]["x"]), accuracy: 1e-3)
            }
        }
    }

    func testDefaultModelAndTextOutput() throws {
        // The default model is the installed pose_landmarker_full.task (present: nothing to install).
        _ = try SharedTestData.installedModel("pose_landmarker_full.task")
        let image = try SharedTestData.file("media/pose_fullbody_yoga_warrior.jpg").path
        let text = try run([image, "--output-format", "text"], model: false)
        // Not only "1 pose": where the pose is and how much of it is visible.
        XCTAssertTrue(text.hasPrefix("\(image): 1 pose: x 0."), text)
        XCTAssertTrue(text.hasSuffix("/33 landmarks visible\n"), text)
        let oneThread = try run([image, "--output-format", "json", "--threads", "1"])
        let allThreads = try run([image, "--output-format", "json"])
        XCTAssertEqual(oneThread, allThreads, "the thread count must not change results")
    }

    func testBadArgumentsAreRefused() throws {
        XCTAssertThrowsError(try PoseCommand.parse(["x.jpg", "--num-poses", "0"]))
        XCTAssertThrowsError(try PoseCommand.parse(["x.jpg", "--min-pose-detection-confidence", "1.5"]))
        XCTAssertThrowsError(try PoseCommand.parse(["x.jpg", "--min-tracking-confidence", "-1"]))
        XCTAssertThrowsError(try PoseCommand.parse(["x.jpg", "--threads", "0"]))
        XCTAssertThrowsError(try PoseCommand.parse([]))
        let command = try PoseCommand.parse(["x.jpg", "--model", dir.appendingPathComponent("missing.task").path])
        XCTAssertThrowsError(try command.run()) { error in
            guard case TasksError.notFound = error else { return XCTFail("\(error)") }
        }
        let help = PoseCommand.helpMessage()
        XCTAssertTrue(help.contains("Examples"))
        XCTAssertTrue(help.contains("--masks"))
        XCTAssertTrue(help.contains("pose_landmarker_heavy.task"))
    }
}
