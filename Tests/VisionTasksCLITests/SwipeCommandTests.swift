import ArgumentParser
import Foundation
import MediaIO
import TestSupport
@testable import VisionTasksCLI
import XCTest

/// `vision-tasks swipe` on the clips made from the shared stills (`GestureClips`).
final class SwipeCommandTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("swipe-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    private func clip(_ shots: [GestureClips.Shot], _ name: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try GestureClips.write(shots, to: path, testdata: try SharedTestData.testdata())
        return path
    }

    /// Runs `vision-tasks swipe ARGUMENTS -o FILE`; returns the lines and whether it succeeded.
    private func swipe(_ arguments: [String]) throws -> (ok: Bool, lines: [String]) {
        let output = dir.appendingPathComponent("out-\(UUID().uuidString)").path
        let model = try SharedTestData.installedModel("gesture_recognizer.task").path
        var command = try VisionTasksCommand.parseAsRoot(["swipe", "--model", model, "-o", output] + arguments)
        var ok = true
        do { try command.run() } catch let code as ExitCode { ok = code == .success }
        return (ok, try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init))
    }

    func testJSONLinesHaveExactlyTheDocumentedForm() throws {
        let video = try clip(GestureClips.thumbsSequence(), "thumbs.mp4")
        let (ok, lines) = try swipe(["--output-format", "jsonl", video])
        XCTAssertTrue(ok)
        XCTAssertEqual(lines.count, 2, "\(lines)")
        let pattern = #"^\{"timestampInMilliseconds": [0-9]+, "event": "(thumbsUp|thumbsDown|swipeLeft|swipeRight)", "hand": [0-9]+, "handedness": "(Left|Right)"\}$"#
        for line in lines { XCTAssertNotNil(line.range(of: pattern, options: .regularExpression), line) }
        let events = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(events.map { $0["event"] as? String }, ["thumbsUp", "thumbsDown"])
        // Completed on the third (or, after a new detection, fourth) frame of each gesture.
        let times = events.compactMap { $0["timestampInMilliseconds"] as? Int }
        XCTAssertEqual(times.count, 2)
        if times.count == 2 {
            XCTAssert((66...100).contains(times[0]), "\(times)")
            XCTAssert((2066...2100).contains(times[1]), "\(times)")
        }
    }

    func testExecRunsPerEventAndAFailureDoesNotStopTheStream() throws {
        let video = try clip(GestureClips.swipeSequence(), "swipe.mp4")
        let log = dir.appendingPathComponent("exec.log").path
        // The first event's command fails; the second still runs and the stream goes on.
        let command = #"echo "$VISION_TASKS_EVENT $VISION_TASKS_HAND $VISION_TASKS_HANDEDNESS $VISION_TASKS_TIMESTAMP_MS" >> "# + log
            + #"; [ "$VISION_TASKS_EVENT" != swipeLeft ]"#
        let (ok, lines) = try swipe(["--exec", command, video])
        XCTAssertFalse(ok, "a failed --exec command sets the exit status")
        XCTAssertEqual(lines.count, 2, "\(lines)")
        let logged = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(Set(logged.map { $0[0] }), ["swipeLeft", "swipeRight"])
        XCTAssertTrue(lines[0].contains("swipeLeft"), lines[0])
        XCTAssertTrue(lines[1].contains("swipeRight"), lines[1])
        // Mirrored input flips the directions.
        XCTAssertEqual(try swipe(["--mirrored", "--output-format", "jsonl", video]).lines.map { $0.contains("swipeRight") }, [true, false])
    }

    func testAnnotateDrawsTheEventOverTheVideo() throws {
        let video = try clip(GestureClips.thumbsSequence(), "thumbs.mp4")
        let annotated = dir.appendingPathComponent("annotated.mp4").path
        _ = try swipe(["--annotate", annotated, video])
        let frames = Array(try VideoReader(path: annotated))
        XCTAssertEqual(frames.count, GestureClips.thumbsSequence().count)
        // Yellow text (the event's name) only while an event is shown: from frame 2 for 0.5 s.
        func yellow(_ index: Int) -> Int {
            let image = frames[index].image.convertedToRGB8()
            var count = 0
            for i in stride(from: 0, to: image.bytes.count - 2, by: 3)
            where image.bytes[i] > 200 && image.bytes[i + 1] > 170 && image.bytes[i + 2] < 90 { count += 1 }
            return count
        }
        XCTAssertGreaterThan(yellow(5), yellow(1) + 50)
        XCTAssertGreaterThan(yellow(5), yellow(25) + 50)
    }
}
