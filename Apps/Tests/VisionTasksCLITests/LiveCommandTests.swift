import ArgumentParser
import Foundation
import MediaIO
import TestSupport
import VisionTasks
@testable import VisionTasksCLI
import XCTest

/// The task commands on live sources: the built `vision-tasks` program, run as a user runs it,
/// against clips that `ffmpeg` serves on 127.0.0.1 (HTTP MJPEG, UDP MPEG-TS), stopped by
/// SIGINT or SIGTERM mid-stream or ending with the stream. No wall-clock assertion: every wait
/// is bounded, and a test that runs out of time fails with what the programs printed.
final class LiveCommandTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("live-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    private func model() throws -> String { try SharedTestData.installedModel("gesture_recognizer.task").path }

    private func clip(_ shots: [GestureClips.Shot], _ name: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try GestureClips.write(shots, to: path, testdata: try SharedTestData.testdata())
        return path
    }

    /// Starts `vision-tasks ARGUMENTS` with stdout and stderr in files.
    private func start(_ arguments: [String], name: String) throws -> ChildProcess {
        try ChildProcess(
            executable: try BuiltTool.path(), arguments: arguments,
            stdout: dir.appendingPathComponent("\(name).out").path, stderr: dir.appendingPathComponent("\(name).err").path)
    }

    private func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private func json(_ line: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    /// `received N, processed N, dropped N` from the summary line on stderr.
    private func counts(_ stderr: String) -> (received: Int, processed: Int, dropped: Int)? {
        let pattern = #"(\d+) frames? received, (\d+) processed, (\d+) dropped"#
        guard let match = stderr.range(of: pattern, options: .regularExpression) else { return nil }
        let numbers = stderr[match].split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.count == 3 ? (numbers[0], numbers[1], numbers[2]) : nil
    }

    /// The thumbs clip over HTTP MJPEG, read in real time to its end (the server closes the
    /// stream): the thumbs-up and thumbs-down events, in order, exit status 0, the counts
    /// printed (every frame received is processed or dropped). Each event's `--exec` command
    /// lists its open descriptors: only stdin, stdout, stderr and its own listing, not the
    /// stream's socket (which commands inherited before).
    func testSwipeOnHTTPMJPEGStreamPrintsTheThumbsEventsAndTheCounts() throws {
        let video = try clip(GestureClips.thumbsSequence(), "thumbs.mp4")
        let port = LiveStreamServer.freePort()
        let server = try LiveStreamServer.startHTTPMJPEG(clip: video, port: port, logTo: dir.appendingPathComponent("ffmpeg.log").path)
        defer { server.kill() }
        let listings = dir.appendingPathComponent("fds").path
        try FileManager.default.createDirectory(atPath: listings, withIntermediateDirectories: true)
        let swipe = try start(
            ["swipe", "--model", try model(), "--output-format", "jsonl", "--input-timeout", "60",
             "--exec", "ls /proc/$$/fd > \(listings)/$VISION_TASKS_TIMESTAMP_MS", "http://127.0.0.1:\(port)/"],
            name: "swipe")
        defer { swipe.kill() }
        let status = swipe.wait(seconds: 180)
        XCTAssertEqual(status, 0, swipe.errorText())
        let events = swipe.outputText().split(separator: "\n").compactMap { json(String($0)) }
        XCTAssertEqual(events.map { $0["event"] as? String }, ["thumbsUp", "thumbsDown"], swipe.outputText() + swipe.errorText())
        let stderr = swipe.errorText()
        XCTAssertTrue(stderr.contains("the source ended"), stderr)
        XCTAssertTrue(stderr.contains("timestamps: arrival times"), stderr)
        let count = try XCTUnwrap(counts(stderr), stderr)
        // The measurement (not asserted beyond consistency): received, processed, dropped, latency.
        print("LiveCommandTests: swipe on HTTP MJPEG 640x480 at 30 fps: " + (stderr.split(separator: "\n").last.map(String.init) ?? ""))
        XCTAssertEqual(count.processed + count.dropped, count.received, stderr)
        XCTAssertGreaterThan(count.received, GestureClips.thumbsSequence().count - 5, stderr)
        XCTAssertGreaterThan(count.processed, 10, stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: listings)
        XCTAssertEqual(files.count, 2, "one listing per event")
        for file in files {
            let descriptors = try String(contentsOfFile: "\(listings)/\(file)", encoding: .utf8).split(separator: "\n")
            XCTAssertLessThanOrEqual(Set(descriptors).subtracting(["0", "1", "2"]).count, 1, "inherited: \(descriptors)")
        }
    }

    /// An MJPEG stream as mjpg-streamer serves it (HTTP/1.0, no length, no chunks), ended by
    /// the server closing the connection after 10 frames: every frame's record and exit status
    /// 0, as `ffmpeg` ends on the same stream. Before: exit status 1, "Input/output error".
    func testAnMJPEGStreamThatEndsByClosingTheConnectionExitsZero() throws {
        let jpeg = [UInt8](try Data(contentsOf: try SharedTestData.file("media/hand_thumb_up_left_01.jpg")))
        let server = try ScriptedHTTPServer { send in
            guard send(ScriptedHTTPServer.mjpegHead()) else { return }
            for _ in 0..<10 {
                guard send(ScriptedHTTPServer.mjpegPart(jpeg, headers: ["Content-Length: \(jpeg.count)"])) else { return }
                usleep(100_000)
            }
        }
        defer { server.stop() }
        let records = dir.appendingPathComponent("records.jsonl").path
        let gesture = try start(["gesture", "--model", try model(), "-o", records, "http://127.0.0.1:\(server.port)/"], name: "gesture")
        defer { gesture.kill() }
        XCTAssertEqual(gesture.wait(seconds: 120), 0, gesture.errorText())
        XCTAssertTrue(gesture.errorText().contains("the source ended"), gesture.errorText())
        XCTAssertGreaterThan(lines(records).count, 0, gesture.errorText())
    }

    /// `gesture` on a UDP MPEG-TS stream that never ends, stopped by SIGINT once results
    /// flow: exit status 0, every line a complete JSON record with the hand found, the counts
    /// and presentation timestamps reported, and an annotated MP4 that plays (one frame per
    /// record).
    func testGestureOnUDPStreamStopsCleanlyOnSIGINT() throws {
        let video = try clip(GestureClips.thumbsSequence(), "thumbs.mp4")
        let port = LiveStreamServer.freePort(udp: true)
        let records = dir.appendingPathComponent("records.jsonl").path
        let annotated = dir.appendingPathComponent("annotated.mp4").path
        let gesture = try start(
            ["gesture", "--model", try model(), "--input-timeout", "60", "-o", records, "--annotate", annotated,
             "udp://127.0.0.1:\(port)"],
            name: "gesture")
        defer { gesture.kill() }
        let sender = try LiveStreamServer.startUDPMPEGTS(clip: video, port: port, logTo: dir.appendingPathComponent("ffmpeg.log").path)
        defer { sender.kill() }
        XCTAssertTrue(gesture.wait(seconds: 120) { lines(records).count >= 20 }, gesture.errorText())
        gesture.send(SIGINT)
        let status = gesture.wait(seconds: 60)
        XCTAssertEqual(status, 0, gesture.errorText())
        let stderr = gesture.errorText()
        XCTAssertTrue(stderr.contains("stopped by SIGINT"), stderr)
        XCTAssertTrue(stderr.contains("timestamps: the stream's presentation times"), stderr)
        let count = try XCTUnwrap(counts(stderr), stderr)
        let written = lines(records)
        XCTAssertEqual(written.count, count.processed, stderr)
        var withHands = 0
        var previous = -1
        for line in written {
            let record = try XCTUnwrap(json(line), "not a complete JSON line: \(line)")
            XCTAssertEqual(record["file"] as? String, "udp://127.0.0.1:\(port)")
            let timestamp = try XCTUnwrap(record["timestampInMilliseconds"] as? Int)
            XCTAssertGreaterThan(timestamp, previous)
            previous = timestamp
            let result = try XCTUnwrap(record["gesture"] as? [String: Any])
            if let hands = result["handedness"] as? [Any], !hands.isEmpty { withHands += 1 }
        }
        // The clip shows a hand in every frame (thumbs up, open palm, thumbs down).
        XCTAssertGreaterThan(withHands, written.count / 2, "\(withHands) of \(written.count)")
        let frames = Array(try VideoReader(path: annotated))
        XCTAssertEqual(frames.count, written.count)
        XCTAssertEqual(frames.first?.image.width, GestureClips.width)
    }

    /// `swipe --annotate` on an HTTP stream looped for ever, stopped by SIGTERM after the first
    /// event: status 0, the event line complete, the annotated video playable.
    func testSwipeStopsCleanlyOnSIGTERMWithAPlayableAnnotation() throws {
        let video = try clip(GestureClips.thumbsSequence(), "thumbs.mp4")
        let port = LiveStreamServer.freePort()
        let server = try LiveStreamServer.startHTTPMJPEG(
            clip: video, port: port, loops: -1, logTo: dir.appendingPathComponent("ffmpeg.log").path)
        defer { server.kill() }
        let annotated = dir.appendingPathComponent("events.mp4").path
        let swipe = try start(
            ["swipe", "--model", try model(), "--output-format", "jsonl", "--annotate", annotated, "http://127.0.0.1:\(port)/"],
            name: "swipe")
        defer { swipe.kill() }
        XCTAssertTrue(swipe.wait(seconds: 120) { swipe.outputText().contains("\n") }, swipe.errorText())
        swipe.send(SIGTERM)
        XCTAssertEqual(swipe.wait(seconds: 60), 0, swipe.errorText())
        let events = swipe.outputText().split(separator: "\n").map { json(String($0)) }
        XCTAssertFalse(events.isEmpty)
        XCTAssertTrue(events.allSatisfy { $0 != nil }, swipe.outputText())
        XCTAssertEqual(events.first??["event"] as? String, "thumbsUp")
        let stderr = swipe.errorText()
        XCTAssertTrue(stderr.contains("stopped by SIGTERM"), stderr)
        let count = try XCTUnwrap(counts(stderr), stderr)
        XCTAssertEqual(Array(try VideoReader(path: annotated)).count, count.processed)
    }

    /// `--live` reads a file as a camera would deliver it (at its own frame rate), in
    /// live-stream mode, with the file's presentation times: hands, gesture and pose each
    /// print a record per processed frame, with what the frames show, and the counts.
    func testLiveFlagReadsAFileInRealTimeForEveryTask() throws {
        let video = try clip(GestureClips.thumbsSequence(), "thumbs.mp4")
        let poseVideo = try SharedTestData.file("media/video_pose_arms_raise_indoor.mp4").path
        let runs: [(command: String, model: String, input: String, key: String, found: String)] = [
            ("hands", "hand_landmarker.task", video, "hands", "handedness"),
            ("gesture", "gesture_recognizer.task", video, "gesture", "gestures"),
            ("pose", "pose_landmarker_full.task", poseVideo, "pose", "landmarks"),
        ]
        for run in runs {
            let records = dir.appendingPathComponent("\(run.command).jsonl").path
            let child = try start(
                [run.command, "--live", "--model", try SharedTestData.installedModel(run.model).path, "-o", records, run.input],
                name: run.command)
            defer { child.kill() }
            XCTAssertEqual(child.wait(seconds: 180), 0, child.errorText())
            let stderr = child.errorText()
            XCTAssertTrue(stderr.contains("the source ended"), stderr)
            XCTAssertTrue(stderr.contains("timestamps: the stream's presentation times"), stderr)
            let count = try XCTUnwrap(counts(stderr), stderr)
            XCTAssertEqual(count.processed + count.dropped, count.received, stderr)
            let written = lines(records).compactMap(json)
            XCTAssertEqual(written.count, count.processed, run.command)
            let found = written.filter { record in
                ((record[run.key] as? [String: Any])?[run.found] as? [Any])?.isEmpty == false
            }
            XCTAssertGreaterThan(found.count, written.count / 2, "\(run.command): \(found.count) of \(written.count)")
        }
    }

    /// `pose --classify --live` on the squat clip read in real time (13 s): the live-stream
    /// task's results are classified and counted as they come, and the text output ends with
    /// the counts of the two complete squats (samples: every labelled frame, SquatCountingTests).
    func testPoseClassifyCountsALiveSource() throws {
        let samples = try SquatCountingTests.fixture.get().samples
        let csv = dir.appendingPathComponent("samples.csv").path
        try Data(PoseSample.csv(samples).utf8).write(to: URL(fileURLWithPath: csv))
        let squats = try SharedTestData.file("media/video_pose_squats.mp4").path
        let output = dir.appendingPathComponent("squats.txt").path
        let child = try start(
            ["pose", "--live", "--classify", csv, "--count", "squats_down", "--output-format", "text", "-o", output,
             "--model", try SharedTestData.installedModel("pose_landmarker_full.task").path, squats],
            name: "pose-classify")
        defer { child.kill() }
        XCTAssertEqual(child.wait(seconds: 180), 0, child.errorText())
        let stderr = child.errorText()
        let count = try XCTUnwrap(counts(stderr), stderr)
        let written = lines(output)
        print("live squats: \(count.processed) of \(count.received) frames processed; last line: \(written.last ?? "")")
        XCTAssertEqual(written.count, count.processed + 1, "a line per processed frame, then the counts")
        XCTAssertEqual(written.last, "\(squats): squats_down: 2", stderr)
    }

    /// UDP has no end-of-stream message: a sender that stops ends the run normally after
    /// `--input-timeout` of silence, with its results written.
    func testUDPStreamEndsNormallyAfterSilence() throws {
        let video = try clip(GestureClips.thumbsSequence(), "thumbs.mp4")
        let port = LiveStreamServer.freePort(udp: true)
        let records = dir.appendingPathComponent("records.jsonl").path
        let hands = try start(
            ["hands", "--model", try SharedTestData.installedModel("hand_landmarker.task").path, "--input-timeout", "3",
             "-o", records, "udp://127.0.0.1:\(port)"],
            name: "hands")
        defer { hands.kill() }
        // The receiver waits (up to 3 s) for the first packet; the sender starts a moment later.
        usleep(300_000)
        let sender = try LiveStreamServer.startUDPMPEGTS(
            clip: video, port: port, loops: 0, logTo: dir.appendingPathComponent("ffmpeg.log").path)
        defer { sender.kill() }
        XCTAssertEqual(hands.wait(seconds: 120), 0, hands.errorText())
        let stderr = hands.errorText()
        XCTAssertTrue(stderr.contains("the udp stream has ended"), stderr)
        let count = try XCTUnwrap(counts(stderr), stderr)
        XCTAssertGreaterThan(count.processed, 0, stderr)
        XCTAssertEqual(lines(records).count, count.processed)
    }

    func testRefusedConnectionFailsWithAClearMessage() throws {
        let port = LiveStreamServer.freePort()
        let hands = try start(
            ["hands", "--model", try SharedTestData.installedModel("hand_landmarker.task").path, "http://127.0.0.1:\(port)/"],
            name: "hands")
        defer { hands.kill() }
        XCTAssertEqual(hands.wait(seconds: 120), 1, hands.errorText())
        XCTAssertTrue(hands.errorText().contains("http://127.0.0.1:\(port)/: cannot be read: connection refused"), hands.errorText())
        XCTAssertEqual(hands.outputText(), "")
    }

    func testMissingCameraFailsWithAClearMessage() throws {
        let gesture = try start(["gesture", "--model", try model(), "--input-format", "v4l2", "/dev/video-none"], name: "gesture")
        defer { gesture.kill() }
        XCTAssertEqual(gesture.wait(seconds: 120), 1, gesture.errorText())
        XCTAssertTrue(gesture.errorText().contains("/dev/video-none: no such camera device"), gesture.errorText())
    }

    /// Which inputs are live, which are read like files.
    func testLiveSourceRecognition() throws {
        func kinds(_ arguments: [String], _ inputs: [String]) throws -> [MediaInput.Kind] {
            let options = try LiveOptions.parse(arguments)
            return InputEnumerator.enumerate(inputs, raw: false, sources: options).inputs.map(\.kind)
        }
        let file = dir.appendingPathComponent("clip.mp4").path
        _ = FileManager.default.createFile(atPath: file, contents: Data([0, 0, 0, 0x18]))
        XCTAssertEqual(
            try kinds([], ["rtsp://cam/stream", "http://host/stream.mjpg", "udp://127.0.0.1:5000", "srt://h:1", "tcp://h:2", "rtp://h:3", file]),
            [.live, .live, .live, .live, .live, .live, .video])
        XCTAssertEqual(try kinds(["--no-live"], ["https://host/clip.mp4", file]), [.stream, .video])
        XCTAssertEqual(try kinds(["--live"], [file]), [.live])
        XCTAssertEqual(try kinds(["--input-format", "mpegts"], [file]), [.stream])
        XCTAssertEqual(try kinds(["--input-format", "lavfi"], ["testsrc=size=64x64"]), [.live])
        let missing = InputEnumerator.enumerate(["/dev/video-none"], raw: false, sources: try LiveOptions.parse(["--input-format", "v4l2"]))
        XCTAssertEqual(missing.inputs.count, 0)
        XCTAssertTrue(missing.problems.first?.contains("no such camera device") == true, "\(missing.problems)")
        XCTAssertThrowsError(try LiveOptions.parse(["--input-option", "novalue"]))
        XCTAssertThrowsError(try LiveOptions.parse(["--input-timeout", "-1"]))
    }
}
