import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// Display rotation through the built `vision-tasks` program, as a user meets it (a phone clip
/// tagged "rotate 90" must not be processed sideways). The clips are made here: a thumbs-up
/// clip (640×480, `GestureClips`) stored turned a quarter counterclockwise (480×640), tagged
/// with our `VideoWriter(displayRotation: 90)` and, as a user would tag it, with
/// `ffmpeg -c copy -metadata:s:v:0 rotate=90`.
final class DisplayRotationCommandTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("rotation-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// Writes the upright clip (`upright.mp4`, 640×480, a thumbs up held 10 frames) and its
    /// frames turned a quarter counterclockwise (480×640) into `name`, tagged `displayRotation`.
    private func makeClips(storedAs name: String, displayRotation: Int) throws {
        let shots = Array(repeating: GestureClips.Shot(GestureClips.thumbUp), count: 10)
        try GestureClips.write(shots, to: path("upright.mp4"), testdata: try SharedTestData.testdata())
        let writer = try VideoWriter(
            path: path(name), width: GestureClips.height, height: GestureClips.width,
            framesPerSecond: Double(GestureClips.framesPerSecond), displayRotation: displayRotation)
        for frame in try VideoReader(path: path("upright.mp4")) {
            // EXIF `left`: the image turned 90° counterclockwise; a 90° clockwise display
            // rotation turns it upright again.
            try writer.append(frame.image.reoriented(.left), timestampInMilliseconds: frame.timestampInMilliseconds)
        }
        try writer.finish()
    }

    /// Runs the program; fails the test with its stderr unless it exits 0.
    private func tool(_ arguments: [String]) throws -> (stdout: String, stderr: String) {
        let run = try BuiltTool.run(arguments, in: dir)
        XCTAssertEqual(run.status, 0, "vision-tasks \(arguments.joined(separator: " ")): \(run.stderr)")
        return (run.stdout, run.stderr)
    }

    /// The hands records of a video (JSON lines): per frame, the hands' landmarks.
    private func hands(_ jsonl: String) throws -> [[[NormalizedLandmark]]] {
        struct Record: Decodable { var hands: HandLandmarkerResult }
        return try String(contentsOfFile: jsonl, encoding: .utf8).split(separator: "\n").map {
            try JSONDecoder().decode(Record.self, from: Data($0.utf8)).hands.landmarks
        }
    }

    /// `media info` shows the rotation and the upright size; `hands` works on upright frames
    /// (its annotated video is 640×480 and its landmarks are the upright clip's), and
    /// `--ignore-display-rotation` gives the stored 480×640 frames.
    func testMediaInfoShowsTheRotationAndIgnoreDisplayRotationGivesTheStoredFrames() throws {
        try makeClips(storedAs: "rot90.mp4", displayRotation: 90)
        let model = try SharedTestData.installedModel("hand_landmarker.task").path

        let info = try tool(["media", "info", path("rot90.mp4")]).stdout
        XCTAssertTrue(info.contains(" 480x640,"), info)
        XCTAssertTrue(info.contains("display rotation 90° clockwise (applied: frames 640x480)"), info)
        let plain = try tool(["media", "info", path("upright.mp4")]).stdout
        XCTAssertTrue(plain.contains(" 640x480,"), plain)
        XCTAssertFalse(plain.contains("display rotation"), plain)

        let common = ["--model", model, "--no-progress", "--output-format", "jsonl"]
        _ = try tool(["hands", path("upright.mp4"), "-o", path("upright.jsonl")] + common)
        _ = try tool(["hands", path("rot90.mp4"), "-o", path("applied.jsonl"), "--annotate", path("applied.mp4")] + common)
        _ = try tool([
            "hands", path("rot90.mp4"), "--ignore-display-rotation", "-o", path("stored.jsonl"), "--annotate", path("stored.mp4"),
        ] + common)

        let applied = try VideoReader(path: path("applied.mp4")).info
        XCTAssertEqual([applied.width, applied.height], [640, 480], "frames turned upright")
        XCTAssertEqual(applied.displayRotation, 0)
        let stored = try VideoReader(path: path("stored.mp4")).info
        XCTAssertEqual([stored.width, stored.height], [480, 640], "--ignore-display-rotation: the frames as stored")

        // With the rotation applied the hand is where it is in the upright clip (the frames
        // differ only by a second H.264 encoding); as stored, it lies on its side.
        let upright = try hands(path("upright.jsonl")), turned = try hands(path("applied.jsonl"))
        let sideways = try hands(path("stored.jsonl"))
        XCTAssertEqual(upright.count, 10)
        XCTAssertEqual(turned.count, 10)
        XCTAssertEqual(sideways.count, 10)
        for (index, (a, b)) in zip(upright, turned).enumerated() {
            guard let a = a.first, let b = b.first else {
                XCTFail("frame \(index): no hand (upright \(a.count), rotation applied \(b.count))")
                continue
            }
            let mean = zip(a, b).map { hypotf($0.x - $1.x, $0.y - $1.y) }.reduce(0, +) / Float(a.count)
            XCTAssertLessThan(mean, 0.01, "frame \(index): landmarks with the rotation applied vs upright")
        }
        // Where a hand is found on the stored frames, its wrist is the upright wrist turned a
        // quarter counterclockwise: (x, y) upright is (y, 1 - x) stored.
        var found = 0
        for (a, s) in zip(upright, sideways) {
            guard let a = a.first, let s = s.first else { continue }
            XCTAssertEqual(s[0].x, a[0].y, accuracy: 0.05)
            XCTAssertEqual(s[0].y, 1 - a[0].x, accuracy: 0.05)
            found += 1
        }
        print("--ignore-display-rotation: a hand on \(found) of \(sideways.count) stored (sideways) frames")
    }

    /// FFmpeg's own recipe: `ffmpeg -i clip.mp4 -c copy -metadata:s:v:0 rotate=90 rot.mp4`.
    /// `media info` reports the rotation FFmpeg stored, and `media decode` gives the frames
    /// `ffmpeg` itself gives with its autorotation (same size, same pixels within decoding
    /// error), and not the same frame turned the other way.
    func testFFmpegRotateTagIsAppliedAsFFmpegAppliesIt() throws {
        let ffmpeg = try LiveStreamServer.ffmpeg()
        try makeClips(storedAs: "untagged.mp4", displayRotation: 0)
        let tagging = try ChildProcess(
            executable: ffmpeg,
            arguments: ["-v", "error", "-y", "-i", path("untagged.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90", path("tagged.mp4")],
            stdout: path("ffmpeg-tag.out"), stderr: path("ffmpeg-tag.err"))
        XCTAssertEqual(tagging.wait(seconds: 120), 0, tagging.errorText())

        let info = try tool(["media", "info", path("tagged.mp4")]).stdout
        print("media info of the ffmpeg-tagged clip: \(info.trimmingCharacters(in: .whitespacesAndNewlines))")
        let degrees = try XCTUnwrap(
            info.range(of: #"display rotation (\d+)°"#, options: .regularExpression).map {
                Int(info[$0].filter(\.isNumber))
            } ?? nil, "media info shows no rotation: \(info)")
        XCTAssertTrue([90, 270].contains(degrees), info)

        let decoded = try tool(["media", "decode", path("tagged.mp4"), "-o", path("ours.rgb")]).stderr
        let size = try XCTUnwrap(
            decoded.range(of: #"(\d+)x(\d+) rgb24"#, options: .regularExpression).map {
                decoded[$0].split(separator: " ")[0].split(separator: "x").compactMap { Int($0) }
            }, decoded)
        XCTAssertEqual(size, [640, 480], "a quarter turn either way makes the stored 480x640 frames 640x480: \(decoded)")
        let first = try XCTUnwrap(size.count == 2 ? size[0] * size[1] * 3 : nil)

        let reference = try ChildProcess(
            executable: ffmpeg,
            arguments: ["-v", "error", "-y", "-i", path("tagged.mp4"), "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", path("ffmpeg.rgb")],
            stdout: path("ffmpeg-decode.out"), stderr: path("ffmpeg-decode.err"))
        XCTAssertEqual(reference.wait(seconds: 120), 0, reference.errorText())
        let ours = try PixelBuffer(
            width: 640, height: 480, format: .rgb8, bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("ours.rgb"))).prefix(first)))
        let theirs = try PixelBuffer(
            width: 640, height: 480, format: .rgb8, bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("ffmpeg.rgb")))))
        let same = TestImagesDiff.meanDifference(ours, theirs)
        let otherWay = TestImagesDiff.meanDifference(ours, theirs.reoriented(.down))
        print("media decode vs ffmpeg's autorotated frame: mean difference \(same) (turned the other way: \(otherWay))")
        XCTAssertLessThan(same, 4, "our upright frame is ffmpeg's")
        XCTAssertGreaterThan(otherWay, 4 * max(same, 1), "the comparison tells the two quarter turns apart")
    }
}
