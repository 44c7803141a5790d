import ArgumentParser
import Foundation
import MediaIO
import TestSupport
import VisionTasks
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

    // MARK: - Outputs (the same safety rules as every other command's -o)

    /// Runs `vision-tasks swipe ARGUMENTS` (no `-o` added); throws what the command throws.
    private func runSwipe(_ arguments: [String]) throws {
        let model = try SharedTestData.installedModel("gesture_recognizer.task").path
        var command = try VisionTasksCommand.parseAsRoot(["swipe", "--model", model] + arguments)
        try command.run()
    }

    func testOutputsNeverOverwriteAnInput() throws {
        let video = try clip(GestureClips.thumbsSequence(), "in.mp4")
        let original = try Data(contentsOf: URL(fileURLWithPath: video))
        let link = dir.appendingPathComponent("link.mp4").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: video)
        // `swipe in.mp4 -o in.mp4` must not empty in.mp4, nor `--annotate in.mp4` overwrite the
        // video while it is being read.
        for target in [video, link] {
            XCTAssertThrowsError(try runSwipe([video, "-o", target])) { XCTAssertTrue("\($0)".contains("refusing to write over an input"), "\($0)") }
            XCTAssertThrowsError(try runSwipe([video, "--annotate", target])) { XCTAssertTrue("\($0)".contains("refusing to write over an input"), "\($0)") }
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: video)), original)
        }
        // No MP4 under the name x.png.
        let png = dir.appendingPathComponent("x.png").path
        XCTAssertThrowsError(try runSwipe([video, "--annotate", png])) { XCTAssertTrue("\($0)".contains("video file"), "\($0)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: png))
        let same = dir.appendingPathComponent("same.mp4").path
        XCTAssertThrowsError(try runSwipe([video, "-o", same, "--annotate", same])) { XCTAssertTrue("\($0)".contains("same file"), "\($0)") }
        // An input that cannot be read leaves an existing output untouched.
        let kept = dir.appendingPathComponent("kept.txt").path
        try Data("precious".utf8).write(to: URL(fileURLWithPath: kept))
        XCTAssertThrowsError(try runSwipe([dir.appendingPathComponent("missing.mp4").path, "-o", kept]))
        XCTAssertEqual(try String(contentsOfFile: kept, encoding: .utf8), "precious")
    }

    func testOutputIsWrittenThroughDevicesAndAFullDiskIsAnError() throws {
        let video = try clip(GestureClips.thumbsSequence(), "thumbs.mp4")
        // As root, `-o /dev/null` writes to the device, not over its node with a regular file.
        let null = try DeviceNodes.make("null", minor: 3, in: dir)
        try runSwipe([video, "-o", null])
        XCTAssertEqual(DeviceNodes.fileType(null), S_IFCHR)
        // The same for /dev/full, where writing fails with the system's message (not a regular
        // file written and exit 0)...
        let full = try DeviceNodes.make("full", minor: 7, in: dir)
        XCTAssertThrowsError(try runSwipe([video, "-o", full])) { XCTAssertTrue("\($0)".contains("No space left"), "\($0)") }
        XCTAssertEqual(DeviceNodes.fileType(full), S_IFCHR)
        // ... and so does stdout on a full disk (not a crash).
        let saved = dup(STDOUT_FILENO)
        let descriptor = open(full, O_WRONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        fflush(nil)
        dup2(descriptor, STDOUT_FILENO)
        let outcome = Result { try runSwipe([video]) }
        dup2(saved, STDOUT_FILENO)
        close(descriptor)
        close(saved)
        XCTAssertThrowsError(try outcome.get()) { XCTAssertTrue("\($0)".contains("No space left"), "\($0)") }
    }

    /// A command slower than the events: at most `maxRunningCommands` run at once and the next
    /// event waits for one to end (`--exec 'sleep 60'` on a long video must not pile up
    /// processes without bound).
    func testExecCommandsRunAtMostALimitAtOnce() throws {
        let running = dir.appendingPathComponent("running")
        try FileManager.default.createDirectory(at: running, withIntermediateDirectories: true)
        let counts = dir.appendingPathComponent("counts").path
        // Each command marks itself running, records how many are, and sleeps a little.
        let command = "touch \(running.path)/$VISION_TASKS_TIMESTAMP_MS; ls \(running.path) | wc -l >> \(counts); "
            + "sleep 0.2; rm \(running.path)/$VISION_TASKS_TIMESTAMP_MS"
        let output = try EventOutput(
            format: .text, includeInput: false, exec: command, path: dir.appendingPathComponent("events.txt").path,
            maxRunningCommands: 3)
        for t in 0..<12 {
            try output.emit(GestureEvent(kind: .thumbsUp, handIdentifier: 1, handedness: "Right", timestampInMilliseconds: t), input: "x")
        }
        try output.finish(createIfEmpty: true)
        XCTAssertEqual(output.failedCommands, 0)
        XCTAssertEqual(output.mostRunningCommands, 3)
        let seen = try String(contentsOfFile: counts, encoding: .utf8).split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        XCTAssertEqual(seen.count, 12, "every event's command ran")
        XCTAssertLessThanOrEqual(seen.max() ?? 0, 3, "\(seen)")
        XCTAssertEqual(try String(contentsOfFile: dir.appendingPathComponent("events.txt").path, encoding: .utf8).split(separator: "\n").count, 12)
    }

    /// `--exec` commands inherit no descriptor of vision-tasks but stdin, stdout and stderr:
    /// before, a command could read or close a live source's socket, or an output file.
    func testExecCommandsInheritNoDescriptorOfOurs() throws {
        let inherited = open(dir.appendingPathComponent("ours.txt").path, O_WRONLY | O_CREAT, 0o600)  // no O_CLOEXEC
        defer { close(inherited) }
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
        defer { close(pair[0]); close(pair[1]) }
        let listing = dir.appendingPathComponent("fds.txt").path
        let output = try EventOutput(format: .text, includeInput: false, exec: "ls /proc/$$/fd > \(listing)", path: dir.appendingPathComponent("events.txt").path)
        try output.emit(GestureEvent(kind: .thumbsUp, handIdentifier: 1, handedness: "Right", timestampInMilliseconds: 0), input: "x")
        try output.finish(createIfEmpty: true)
        XCTAssertEqual(output.failedCommands, 0)
        let descriptors = try String(contentsOfFile: listing, encoding: .utf8).split(separator: "\n").map(String.init)
        // The shell's own: 0, 1, 2 (and the listing it redirects to, once it opened it).
        XCTAssertEqual(Set(descriptors).subtracting(["0", "1", "2"]).count, descriptors.count > 3 ? 1 : 0, "\(descriptors)")
        XCTAssertFalse(descriptors.contains(String(inherited)), "\(descriptors)")
        XCTAssertFalse(descriptors.contains(String(pair[0])) || descriptors.contains(String(pair[1])), "\(descriptors)")
    }

    /// A command that runs over `--exec-timeout` is stopped (SIGTERM, then SIGKILL) and counted
    /// as failed; the run ends instead of waiting for it.
    func testACommandOverTheExecTimeoutIsStopped() throws {
        let output = try EventOutput(
            format: .text, includeInput: false, exec: "sleep 60", path: dir.appendingPathComponent("events.txt").path, execTimeout: 0.5)
        try output.emit(GestureEvent(kind: .thumbsUp, handIdentifier: 1, handedness: "Right", timestampInMilliseconds: 0), input: "x")
        try output.finish(createIfEmpty: true)
        XCTAssertEqual(output.failedCommands, 1)
        XCTAssertEqual(output.commands.runningCount, 0)
    }

    /// `vision-tasks swipe --exec` stopped by SIGTERM (its PID only, as a supervisor does) on a
    /// file and on a live source: the running commands get the signal and are reaped, not left
    /// behind. The file run ends by the signal; the live run ends normally (status 0).
    func testCommandsAreStoppedWithVisionTasks() throws {
        let video = try clip(GestureClips.thumbsSequence(), "thumbs.mp4")
        let model = try SharedTestData.installedModel("gesture_recognizer.task").path
        for live in [false, true] {
            let pids = dir.appendingPathComponent("pids-\(live)").path
            let run = try ChildProcess(
                executable: try BuiltTool.path(),
                arguments: ["swipe", "--model", model, "--exec", "echo $$ >> \(pids); exec sleep 60", video] + (live ? ["--live"] : []),
                stdout: dir.appendingPathComponent("swipe-\(live).out").path, stderr: dir.appendingPathComponent("swipe-\(live).err").path)
            defer { run.kill() }
            XCTAssertTrue(run.wait(seconds: 120) { FileManager.default.fileExists(atPath: pids) }, run.errorText())
            usleep(200_000)
            run.send(SIGTERM)
            let status = run.wait(seconds: 60)
            XCTAssertFalse(run.process.isRunning, "still running after SIGTERM: \(run.errorText())")
            if live {
                XCTAssertEqual(status, 0, run.errorText())
            } else {
                XCTAssertEqual(run.process.terminationReason, .uncaughtSignal, run.errorText())
            }
            let started = try String(contentsOfFile: pids, encoding: .utf8).split(separator: "\n").compactMap { pid_t($0) }
            XCTAssertFalse(started.isEmpty)
            for pid in started {
                XCTAssertEqual(kill(pid, 0), -1, "command \(pid) left running")
                XCTAssertEqual(errno, ESRCH, "command \(pid) not reaped")
            }
        }
    }

    func testOptionsAndDevicesAreRefusedInTheCommandsOwnWords() throws {
        // Each flag is named in its own message (not "GestureEventOptions: minimumFrames must
        // be at least 1.").
        for (flag, value) in [("--min-frames", "0"), ("--swipe-distance", "nan"), ("--swipe-window", "0")] {
            XCTAssertThrowsError(try SwipeCommand.parse(["x.mp4", flag, value])) {
                XCTAssertTrue(SwipeCommand.message(for: $0).contains(flag), SwipeCommand.message(for: $0))
            }
        }
        // A device is named once, as a device, on stderr (not "/dev/zero: /dev/zero: is empty").
        let log = dir.appendingPathComponent("stderr.txt").path
        let saved = dup(STDERR_FILENO)
        let descriptor = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        dup2(descriptor, STDERR_FILENO)
        let outcome = Result { try runSwipe(["/dev/zero", "-o", dir.appendingPathComponent("o.txt").path]) }
        dup2(saved, STDERR_FILENO)
        close(descriptor)
        close(saved)
        XCTAssertThrowsError(try outcome.get())
        let said = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(said.contains("vision-tasks: /dev/zero: is a device or socket, not an image or video file\n"), said)
    }
}
