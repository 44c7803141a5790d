import ArgumentParser
import Foundation
import TestSupport
@_spi(Apps) import VisionTasks
@testable import VisionTasksCLI
import XCTest

/// `vision-tasks gesture` and `vision-tasks hands`: JSON in the form of MediaPipe's
/// reference files for images, JSON lines for videos.
final class GestureCommandTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    private func referenceBundle() throws -> String {
        try SharedTestData.referenceModels().appendingPathComponent("gesture_recognizer.task").path
    }

    /// Runs `vision-tasks ARGUMENTS --output FILE --no-progress`; returns the output text.
    private func run(_ arguments: [String]) throws -> String {
        let output = dir.appendingPathComponent("out-\(UUID().uuidString)").path
        var command = try VisionTasksCommand.parseAsRoot(arguments + ["--output", output, "--no-progress"])
        try command.run()
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    private func object(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    private func reference(_ name: String) throws -> [String: Any] {
        try object(String(contentsOf: SharedTestData.file("reference/\(name).json"), encoding: .utf8))
    }

    func testGestureImagePrintsTheReferenceFormat() throws {
        let name = "hands_two_open_palm_and_hanging"
        let image = try SharedTestData.file("reference/\(name).pixels.png").path
        let record = try object(try run(["gesture", image, "--num-hands", "2", "--model", try referenceBundle()]))
        XCTAssertEqual(Set(record.keys), ["file", "width", "height", "gesture"])
        XCTAssertEqual(record["file"] as? String, image)
        XCTAssertEqual(record["width"] as? Int, 720)
        XCTAssertEqual(record["height"] as? Int, 382)
        let ours = try XCTUnwrap(record["gesture"] as? [String: Any])
        let theirs = try XCTUnwrap(try reference(name)["gesture"] as? [String: Any])
        XCTAssertEqual(Set(ours.keys), Set(theirs.keys))
        for key in ["handedness", "gestures"] {
            let a = try XCTUnwrap(ours[key] as? [[[String: Any]]]), b = try XCTUnwrap(theirs[key] as? [[[String: Any]]])
            XCTAssertEqual(a.count, b.count, key)
            for (x, y) in zip(a, b) {
                XCTAssertEqual(Set(x[0].keys), Set(y[0].keys), key)
                XCTAssertEqual(x[0]["categoryName"] as? String, y[0]["categoryName"] as? String, key)
                XCTAssertEqual(x[0]["displayName"] as? String, y[0]["displayName"] as? String, key)
                XCTAssertEqual(x[0]["index"] as? Int, y[0]["index"] as? Int, key)
                XCTAssertEqual(try XCTUnwrap(x[0]["score"] as? Double), try XCTUnwrap(y[0]["score"] as? Double), accuracy: 1e-3)
            }
        }
        for key in ["landmarks", "worldLandmarks"] {
            let a = try XCTUnwrap(ours[key] as? [[[String: Double]]]), b = try XCTUnwrap(theirs[key] as? [[[String: Double]]])
            XCTAssertEqual(a.count, b.count, key)
            for (x, y) in zip(a, b) {
                XCTAssertEqual(x.count, 21)
                for (p, q) in zip(x, y) {
                    XCTAssertEqual(Set(p.keys), ["x", "y", "z"])
                    for c in ["x", "y", "z"] {
                        XCTAssertEqual(try XCTUnwrap(p[c]), try XCTUnwrap(q[c]), accuracy: 1e-3, "\(key).\(c)")
                    }
                }
            }
        }
    }

    func testGestureVideoPrintsJSONLines() throws {
        let video = try SharedTestData.file("media/video_pose_squats.mp4").path
        let text = try run(["gesture", video, "--num-hands", "2", "--model", try referenceBundle()])
        let lines = text.split(separator: "\n")
        let references = try String(
            contentsOf: SharedTestData.file("reference/video_pose_squats.jsonl"), encoding: .utf8
        ).split(separator: "\n")
        XCTAssertEqual(lines.count, references.count)
        var sameCount = 0
        for (index, (line, referenceLine)) in zip(lines, references).enumerated() {
            let record = try object(String(line))
            let reference = try object(String(referenceLine))
            XCTAssertEqual(Set(record.keys), ["file", "frame", "timestampInMilliseconds", "gesture"])
            XCTAssertEqual(record["frame"] as? Int, index)
            XCTAssertEqual(record["timestampInMilliseconds"] as? Int, reference["timestampInMilliseconds"] as? Int)
            let ours = try XCTUnwrap(record["gesture"] as? [String: Any])
            let theirs = try XCTUnwrap(reference["gesture"] as? [String: Any])
            XCTAssertEqual(Set(ours.keys), ["handedness", "gestures", "landmarks", "worldLandmarks"])
            if (ours["landmarks"] as? [Any])?.count == (theirs["landmarks"] as? [Any])?.count { sameCount += 1 }
        }
        XCTAssertGreaterThanOrEqual(Double(sameCount), 0.98 * Double(lines.count))
    }

    func testTextSummariesCustomBundleAndClassifierFlags() throws {
        let image = try SharedTestData.file("reference/hands_two_open_palm_and_hanging.pixels.png").path
        let text = try run([
            "gesture", image, "--num-hands", "2", "--output-format", "text", "--model", "operations.task",
        ])
        XCTAssertEqual(text.trimmingCharacters(in: .newlines), "\(image): 2 hands: Left: equal 0.57, Left: divide 0.93")
        let denied = try run([
            "gesture", image, "--num-hands", "2", "--output-format", "text", "--deny", "None",
            "--model", try referenceBundle(),
        ])
        XCTAssertTrue(denied.contains("Left: Thumb_Up 0.33, Left: Open_Palm 0.68"), denied)
        XCTAssertThrowsError(try VisionTasksCommand.parseAsRoot(["gesture", image, "--allow", "A", "--deny", "B"]))
        XCTAssertThrowsError(try VisionTasksCommand.parseAsRoot(["gesture", image, "--num-hands", "0"]))
        XCTAssertThrowsError(try VisionTasksCommand.parseAsRoot(["hands", image, "--min-tracking-confidence", "2"]))
        XCTAssertThrowsError(try VisionTasksCommand.parseAsRoot(["hands", image, "--threads", "0"]))
        XCTAssertThrowsError(try run(["gesture", image, "--model", dir.appendingPathComponent("missing.task").path]))
    }

    /// `--custom-allow` and `--custom-deny` warn about names the custom classifier does not
    /// have, as `--allow` and `--deny` do for the canned one: each list is checked against its
    /// own classifier's labels, not a fixed list of names.
    func testEveryClassifierListWarnsAboutNamesItsClassifierDoesNotHave() throws {
        let operations = try SharedTestData.installedModel("operations.task").path
        func classifierNames(_ model: String) throws -> GestureClassifierNames {
            let baseOptions = BaseOptions()
            baseOptions.modelAssetPath = model
            return try GestureClassifierNames(baseOptions: baseOptions)
        }
        func warnings(_ model: String, _ arguments: [String]) throws -> [String] {
            try GestureCommand.parse(["x.jpg"] + arguments).classifierListWarnings(names: try classifierNames(model))
        }
        // operations.task's custom classifier is labelled (none, divide, equal, multiply, ...),
        // its canned one is not (the canned gesture names stand in).
        let names = try classifierNames(operations)
        XCTAssertEqual(names.canned, CannedGesture.allCases.map(\.rawValue))
        XCTAssertTrue(["none", "divide", "equal", "multiply"].allSatisfy { names.custom?.contains($0) ?? false }, "\(names)")

        XCTAssertEqual(try warnings(operations, ["--custom-allow", "divide,equal"]), [])
        XCTAssertEqual(try warnings(operations, ["--custom-deny", "none"]), [])
        for flag in ["--custom-allow", "--custom-deny"] {
            let found = try warnings(operations, [flag, "Divide, equal,plus_sign,plus_sign"])
            XCTAssertEqual(found.count, 1, "\(found)")
            XCTAssertTrue(
                found.first?.hasPrefix("warning: \(flag): the custom classifier has no gesture named Divide, plus_sign (") ?? false,
                "\(found)")
            XCTAssertTrue(found.first?.contains("divide") ?? false, "the names it has are listed: \(found)")
        }
        // Both kinds of list at once, each checked against its own classifier.
        let both = try warnings(operations, ["--allow", "divide", "--custom-deny", "Thumb_Up"])
        XCTAssertEqual(both.count, 2, "\(both)")
        XCTAssertTrue(both.contains { $0.hasPrefix("warning: --allow: no canned gesture is named divide (") }, "\(both)")
        XCTAssertTrue(both.contains { $0.hasPrefix("warning: --custom-deny: the custom classifier has no gesture named Thumb_Up (") }, "\(both)")

        // A bundle without a custom classifier: a custom list has no effect at all.
        let canned = try SharedTestData.installedModel("gesture_recognizer.task").path
        XCTAssertNil(try classifierNames(canned).custom)
        XCTAssertEqual(
            try warnings(canned, ["--custom-allow", "divide"]),
            ["warning: --custom-allow: the model has no custom gesture classifier; the list has no effect"])
        XCTAssertEqual(try warnings(canned, ["--allow", "Thumb_Up,Victory"]), [])
    }

    func testHandsImagePrintsTheReferenceFormat() throws {
        let image = try SharedTestData.file("reference/hand_victory_right_01.pixels.png").path
        let record = try object(try run(["hands", image]))
        XCTAssertEqual(Set(record.keys), ["file", "width", "height", "hands"])
        let hands = try XCTUnwrap(record["hands"] as? [String: Any])
        XCTAssertEqual(Set(hands.keys), ["handedness", "landmarks", "worldLandmarks"])
        let handedness = try XCTUnwrap(hands["handedness"] as? [[[String: Any]]])
        XCTAssertEqual(handedness.first?.first?["categoryName"] as? String, "Right")
        XCTAssertEqual(handedness.first?.first?["displayName"] as? String, "Right")
        XCTAssertEqual((hands["landmarks"] as? [[Any]])?.first?.count, 21)
        let text = try run(["hands", image, "--output-format", "text"])
        XCTAssertTrue(text.hasPrefix("\(image): 1 hand: Right 0.99"), text)
    }
}
