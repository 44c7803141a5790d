import Foundation
import MediaIO
import TestSupport
import VisionTasks
@testable import VisionTasksCLI
import XCTest

/// `vision-tasks pose samples FOLDER -o samples.csv`: photos and sampled video frames into ML
/// Kit's CSV; examples without a pose listed; bad folders refused with a sentence.
final class PoseSamplesCommandTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pose-samples-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Copies shared media into `FOLDER/<class>/`.
    private func folder(_ classes: [String: [String]]) throws -> URL {
        let root = dir.appendingPathComponent("examples")
        for (className, files) in classes {
            let classFolder = root.appendingPathComponent(className)
            try FileManager.default.createDirectory(at: classFolder, withIntermediateDirectories: true)
            for file in files {
                let source = try SharedTestData.file("media/\(file)")
                try FileManager.default.copyItem(at: source, to: classFolder.appendingPathComponent(file))
            }
        }
        return root
    }

    private func run(_ arguments: [String]) throws -> (status: Int32?, stdout: String, stderr: String) {
        try BuiltTool.run(["pose", "samples"] + arguments, in: dir)
    }

    func testPhotosAndVideoFramesBecomeMLKitsCSVAndPoselessExamplesAreListed() throws {
        let examples = try folder([
            "standing": ["pose_fullbody_frisbee.jpg", "neg_banana.jpg"],
            "squatting": ["video_pose_squats.mp4"],
        ])
        let csv = dir.appendingPathComponent("samples.csv").path
        let model = try SharedTestData.installedModel("pose_landmarker_full.task").path
        let (status, stdout, stderr) = try run([examples.path, "-o", csv, "--video-fps", "1", "--model", model])
        XCTAssertEqual(status, 0, stderr)
        XCTAssertEqual(stdout, "")
        print(stderr)
        XCTAssertTrue(stderr.contains("1 of 15 examples had no pose and are not in the CSV: standing/neg_banana.jpg"), stderr)
        XCTAssertTrue(stderr.contains("14 pose samples (squatting: 13, standing: 1) written to \(csv)"), stderr)
        XCTAssertTrue(stderr.contains("note: class standing has 1 sample:"), stderr)

        let text = try String(contentsOfFile: csv, encoding: .utf8)
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, 14)
        XCTAssertTrue(lines.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 101 })
        let samples = try PoseSample.samples(csv: Data(text.utf8))
        // Names: the path inside the class folder; video frames at 1 per second of the 5 fps clip.
        XCTAssertEqual(samples.map(\.name), (0..<13).map { "video_pose_squats.mp4@\($0 * 1000)ms" } + ["pose_fullbody_frisbee.jpg"])
        XCTAssertEqual(samples.map(\.className), Array(repeating: "squatting", count: 13) + ["standing"])

        // The photo's row holds the landmarker's image-mode landmarks in pixels (z × width).
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = model
        let image = try MPImage(contentsOfFile: examples.appendingPathComponent("standing/pose_fullbody_frisbee.jpg").path)
        let pose = try XCTUnwrap(try PoseLandmarker(options: options).detect(image: image).landmarks.first)
        let expected = try PoseSample(name: "pose_fullbody_frisbee.jpg", className: "standing", landmarks: pose,
                                      imageWidth: image.width, imageHeight: image.height)
        XCTAssertEqual(samples.last, expected)
    }

    func testFoldersThatHoldNoClassesAreRefused() throws {
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        var result = try run([empty.path])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("\(empty.path): no class folders"), result.stderr)

        let noMedia = dir.appendingPathComponent("nomedia/squats_up")
        try FileManager.default.createDirectory(at: noMedia, withIntermediateDirectories: true)
        try Data("notes".utf8).write(to: noMedia.appendingPathComponent("README.txt"))
        result = try run([noMedia.deletingLastPathComponent().path])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("class \"squats_up\" has no photos or videos"), result.stderr)

        let comma = dir.appendingPathComponent("comma/up,down")
        try FileManager.default.createDirectory(at: comma, withIntermediateDirectories: true)
        result = try run([comma.deletingLastPathComponent().path])
        XCTAssertTrue(result.stderr.contains("the class name holds a comma"), result.stderr)

        result = try run([dir.appendingPathComponent("missing").path])
        XCTAssertTrue(result.stderr.contains("no such folder"), result.stderr)
        result = try run([empty.path, "--video-fps", "0"])
        XCTAssertTrue(result.stderr.contains("--video-fps must be between 0.01 and 1000"), result.stderr)
        result = try run(["--help"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stdout.contains("vision-tasks pose samples <folder>"), result.stdout)
    }

    func testAnUnreadableExampleIsListedAndFailsTheRun() throws {
        let examples = try folder(["standing": ["pose_fullbody_frisbee.jpg"], "other": ["pose_fullbody_yoga_warrior.jpg"]])
        try Data([0xFF, 0xD8, 0xFF, 0x00]).write(to: examples.appendingPathComponent("standing/broken.jpg"))
        let csv = dir.appendingPathComponent("samples.csv").path
        let model = try SharedTestData.installedModel("pose_landmarker_full.task").path
        let (status, _, stderr) = try run([examples.path, "-o", csv, "--model", model])
        XCTAssertEqual(status, 1, stderr)
        XCTAssertTrue(stderr.contains("broken.jpg"), stderr)
        XCTAssertEqual(try PoseSample.samples(contentsOfCSVFile: csv).map(\.name),
                       ["pose_fullbody_yoga_warrior.jpg", "pose_fullbody_frisbee.jpg"], "the readable examples are written")
    }
}
