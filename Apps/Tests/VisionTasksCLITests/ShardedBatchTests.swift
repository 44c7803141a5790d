import ArgumentParser
import Foundation
import MediaIO
import TestSupport
@testable import VisionTasks
@testable import VisionTasksCLI
import XCTest

/// Batch runs split over processes: `--shard INDEX/COUNT` (or `--shard-count` with
/// `JOB_COMPLETION_INDEX`), `--inputs-from`, `--output-dir` with outputs that appear only
/// complete, and `--skip-existing`. The split and the outputs are checked with the built
/// `vision-tasks` program on copies of the shared media: 4 shards write exactly what one run
/// writes, and a run killed half-way and run again finishes without redoing what was done.
final class ShardedBatchTests: XCTestCase {
    private var dir: URL!
    private let fm = FileManager.default

    override func setUpWithError() throws {
        dir = fm.temporaryDirectory.appendingPathComponent("sharded-batch-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? fm.removeItem(at: dir) }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// Copies shared media files into `folder` under `names` (copies, not links: a folder scan
    /// takes a second link to one file once).
    private func copyMedia(_ files: [(shared: String, name: String)], into folder: String) throws {
        for file in files {
            let target = (folder as NSString).appendingPathComponent(file.name)
            try fm.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try fm.copyItem(atPath: try SharedTestData.file("media/" + file.shared).path, toPath: target)
        }
    }

    /// Every regular file under `folder` (hidden ones too), by relative path, with its bytes.
    private func files(under folder: String) -> [String: Data] {
        var found: [String: Data] = [:]
        guard let walker = fm.enumerator(atPath: folder) else { return found }
        while let relative = walker.nextObject() as? String {
            let full = (folder as NSString).appendingPathComponent(relative)
            if MediaInput.isRegularFile(full), let data = fm.contents(atPath: full) { found[relative] = data }
        }
        return found
    }

    /// Starts `vision-tasks ARGUMENTS` with `environment` added to this process's.
    private func start(_ arguments: [String], environment: [String: String] = [:], name: String) throws -> ChildProcess {
        var all = ProcessInfo.processInfo.environment
        all.removeValue(forKey: Shard.indexVariable)
        all.merge(environment) { $1 }
        return try ChildProcess(
            executable: try BuiltTool.path(), arguments: arguments,
            stdout: path("\(name).out"), stderr: path("\(name).err"), environment: all)
    }

    /// Runs `vision-tasks ARGUMENTS` to its end: exit status (nil if it had to be killed) and stderr.
    private func run(_ arguments: [String], environment: [String: String] = [:], name: String) throws -> (status: Int32?, stderr: String) {
        let child = try start(arguments, environment: environment, name: name)
        let status = child.wait(seconds: 900)
        child.kill()
        return (status, child.errorText())
    }

    private func poseModel() throws -> String { try SharedTestData.installedModel("pose_landmarker_full.task").path }

    // MARK: - The split

    func testShardSpecsAreParsedAndBadFormsRefusedWithTheirReason() throws {
        XCTAssertEqual(try Shard(parsing: "0/1"), try Shard(index: 0, count: 1))
        XCTAssertEqual(try Shard(parsing: "3/4"), try Shard(index: 3, count: 4))
        let bad: [(String, ShardError)] = [
            ("4/4", .indexOutOfRange(index: 4, count: 4)), ("0/0", .countBelowOne(0)), ("1-4", .malformed("1-4")),
            ("1/", .malformed("1/")), ("/4", .malformed("/4")), ("-1/4", .malformed("-1/4")), ("a/4", .malformed("a/4")),
            ("1/4/2", .malformed("1/4/2")), (" 1/4", .malformed(" 1/4")), ("99999999999999999999/4", .malformed("99999999999999999999/4")),
        ]
        for (text, expected) in bad {
            XCTAssertThrowsError(try Shard(parsing: text), text) { XCTAssertEqual($0 as? ShardError, expected, text) }
        }
        XCTAssertTrue(ShardError.indexOutOfRange(index: 4, count: 4).description.contains("from 0 to 3"))

        // The Indexed Job form: JOB_COMPLETION_INDEX with --shard-count is --shard INDEX/COUNT.
        for index in 0..<4 {
            XCTAssertEqual(
                try Shard.resolve(shard: nil, shardCount: 4, environment: [Shard.indexVariable: "\(index)"]),
                try Shard.resolve(shard: "\(index)/4", shardCount: nil, environment: [:]))
        }
        XCTAssertNil(try Shard.resolve(shard: nil, shardCount: nil, environment: [Shard.indexVariable: "2"]))
        let resolveBad: [(String?, Int?, [String: String], ShardError)] = [
            (nil, 4, [:], .indexVariableMissing(count: 4)),
            (nil, 4, [Shard.indexVariable: "two"], .indexVariableMalformed("two")),
            (nil, 4, [Shard.indexVariable: "4"], .indexOutOfRange(index: 4, count: 4)),
            (nil, 0, [Shard.indexVariable: "0"], .countBelowOne(0)),
            ("1/4", 4, [Shard.indexVariable: "1"], .bothForms),
        ]
        for (shard, count, environment, expected) in resolveBad {
            XCTAssertThrowsError(try Shard.resolve(shard: shard, shardCount: count, environment: environment)) {
                XCTAssertEqual($0 as? ShardError, expected)
            }
        }
    }

    func testBadShardOptionsAreRefusedByTheCommandWithAClearMessage() throws {
        let refused: [([String], String)] = [
            (["--shard", "4/4"], "the index must be from 0 to 3"),
            (["--shard", "two/4"], "give INDEX/COUNT with whole numbers"),
            (["--shard", "0/0"], "at least 1 shard"),
            (["--shard", "0/2", "--shard-count", "2"], "not both"),
            (["--skip-existing"], "--skip-existing needs --output-dir"),
            (["--output-dir", "out", "-o", "x.jsonl"], "not both"),
        ]
        for (arguments, message) in refused {
            XCTAssertThrowsError(try PoseCommand.parse(arguments + ["x.jpg"]), "\(arguments)") { error in
                XCTAssertTrue(PoseCommand.message(for: error).contains(message), "\(arguments): \(PoseCommand.message(for: error))")
            }
        }
        // The program: exit status 64 (a usage error) and the reason on stderr, nothing read.
        let program = try run(["pose", "--shard", "5/4", dir.path], name: "bad")
        XCTAssertEqual(program.status, 64, program.stderr)
        XCTAssertTrue(program.stderr.contains("shard 5/4: the index must be from 0 to 3"), program.stderr)
        let noIndex = try run(["hands", "--shard-count", "4", dir.path], name: "no-index")
        XCTAssertEqual(noIndex.status, 64, noIndex.stderr)
        XCTAssertTrue(noIndex.stderr.contains("JOB_COMPLETION_INDEX"), noIndex.stderr)
    }

    func testSplitDependsOnNamesOnlyAndCoversEveryInputOnce() throws {
        let names = (0..<11).map { "clip\($0).mp4" } + ["b/x.jpg", "a/x.jpg", "Z.png", "é.jpg"]
        let inputs = names.map { MediaInput(path: "/mnt/videos/" + $0, kind: .video, relativeName: $0) }
        let reversed = Array(inputs.reversed())
        var seen: [String] = []
        for index in 0..<4 {
            let shard = try Shard(index: index, count: 4)
            let part = shard.select(inputs, key: { $0.relativeName ?? "" }, tieBreak: \.path)
            // The listing order plays no part; the folder's mount point neither.
            XCTAssertEqual(part, shard.select(reversed, key: { $0.relativeName ?? "" }, tieBreak: \.path))
            let moved = inputs.map { MediaInput(path: "/elsewhere/" + ($0.relativeName ?? ""), kind: .video, relativeName: $0.relativeName) }
            XCTAssertEqual(part.map(\.relativeName), shard.select(moved, key: { $0.relativeName ?? "" }, tieBreak: \.path).map(\.relativeName))
            XCTAssertTrue((3...4).contains(part.count), "15 inputs over 4 shards: 3 or 4 each, got \(part.count)")
            seen += part.compactMap(\.relativeName)
        }
        XCTAssertEqual(seen.sorted(), names.sorted())
        // The order is by UTF-8 bytes: capitals before small letters, 'é' after 'z'.
        let order = Shard.sorted(inputs, key: { $0.relativeName ?? "" }, tieBreak: \.path).compactMap(\.relativeName)
        XCTAssertEqual(order.first, "Z.png")
        XCTAssertEqual(order.last, "é.jpg")
        XCTAssertEqual(try Shard(index: 0, count: 1).select(inputs, key: { $0.relativeName ?? "" }, tieBreak: \.path).count, inputs.count)
    }

    // MARK: - List files, output folders (model-free)

    func testInputListSkipsBlankLinesAndCommentsAndNamesOutputsAsWritten() throws {
        let list = InputList(text: "# cameras\n\ncam1/a.mp4\r\n  cam2/a.mp4  \n\t# off\n/abs/c.jpg\n", folder: "/data")
        XCTAssertEqual(list.entries, [
            InputList.Entry(path: "/data/cam1/a.mp4", base: "/data"), InputList.Entry(path: "/data/cam2/a.mp4", base: "/data"),
            InputList.Entry(path: "/abs/c.jpg", base: nil),
        ])
        XCTAssertEqual(MediaInput.relativeName(of: "/data/cam1/a.mp4", base: "/data"), "cam1/a.mp4")
        XCTAssertEqual(MediaInput.relativeName(of: "./cam1/./a.mp4", base: ""), "cam1/a.mp4")
        XCTAssertNil(MediaInput.relativeName(of: "/data/../x.mp4", base: "/data"))
        XCTAssertThrowsError(try InputList(contentsOf: path("missing.txt"))) {
            XCTAssertTrue(String(describing: $0).contains("--inputs-from \(self.path("missing.txt")): no such file"))
        }
    }

    /// Two photos named alike in two folders of a list, a third in a folder argument: one
    /// records file each, named by its path in the list or folder; skipped when there, the
    /// others untouched; a leftover temporary file of a killed run removed.
    func testOutputDirectoryWritesOneRecordsFilePerInputAndSkipExistingSkipsThem() throws {
        let data = path("data")
        try copyMedia([("neg_banana.jpg", "cam1/a.jpg"), ("neg_coffee_mug.jpg", "cam2/a.jpg"), ("neg_giraffes.jpg", "more/b.jpg")], into: data)
        try "# two cameras\ncam1/a.jpg\n\ncam2/a.jpg\n".write(toFile: data + "/list.txt", atomically: true, encoding: .utf8)
        let out = path("out")
        func run(_ extra: [String]) throws -> SizeProcessor {
            let options = try MediaOptions.parse(
                ["--inputs-from", data + "/list.txt", "--output-dir", out, "--no-progress", data + "/more"] + extra)
            var processor = SizeProcessor()
            XCTAssertTrue(try MediaDriver(options: options).run(&processor))
            return processor
        }
        XCTAssertEqual(Set(try run([]).processed), [data + "/cam1/a.jpg", data + "/cam2/a.jpg", data + "/more/b.jpg"])
        XCTAssertEqual(Set(files(under: out).keys), ["cam1/a.jpg.json", "cam2/a.jpg.json", "b.jpg.json"])
        let record = try XCTUnwrap(files(under: out)["cam2/a.jpg.json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: record) as? [String: Any])
        XCTAssertEqual(object["file"] as? String, data + "/cam2/a.jpg")

        // One records file gone, a temporary file left beside it as by a killed run.
        try fm.removeItem(atPath: out + "/cam2/a.jpg.json")
        let leftover = out + "/cam2/.partial-123x4f-a.jpg.json"
        try "{\"file\"".write(toFile: leftover, atomically: false, encoding: .utf8)
        let before = try fm.attributesOfItem(atPath: out + "/b.jpg.json")[.systemFileNumber] as? Int
        XCTAssertEqual(try run(["--skip-existing"]).processed, [data + "/cam2/a.jpg"])
        XCTAssertEqual(Set(files(under: out).keys), ["cam1/a.jpg.json", "cam2/a.jpg.json", "b.jpg.json"])
        XCTAssertEqual(try fm.attributesOfItem(atPath: out + "/b.jpg.json")[.systemFileNumber] as? Int, before)
        XCTAssertEqual(files(under: out)["cam2/a.jpg.json"], record)
        // Everything there: nothing to do.
        XCTAssertEqual(try run(["--skip-existing"]).processed, [])
    }

    /// With --output-dir, --annotate DIR draws each input to DIR/NAME.annotated.mp4|png, put in
    /// place like the records (no temporary file left), in the input's subfolder.
    func testAnnotationsUnderOutputDirectoryAreNamedAfterTheInputAndPutInPlace() throws {
        let data = path("data")
        try copyMedia([("video_pose_squats.mp4", "gym/squats.mp4"), ("neg_banana.jpg", "banana.jpg")], into: data)
        let options = try MediaOptions.parse(
            ["--output-dir", path("out"), "--annotate", path("drawn"), "--no-progress", data])
        var processor = SizeProcessor()
        XCTAssertTrue(try MediaDriver(options: options).run(&processor))
        XCTAssertEqual(Set(files(under: path("out")).keys), ["gym/squats.mp4.jsonl", "banana.jpg.json"])
        XCTAssertEqual(Set(files(under: path("drawn")).keys), ["gym/squats.mp4.annotated.mp4", "banana.jpg.annotated.png"])
        let reader = try VideoReader(path: path("drawn/gym/squats.mp4.annotated.mp4"))
        var count = 0
        while try reader.nextFrame() != nil { count += 1 }
        XCTAssertEqual(count, processor.processed.filter { $0.hasSuffix(".mp4") }.count)
    }

    func testOutputDirectoryRefusesInputsThatWouldShareARecordsFile() throws {
        try copyMedia([("neg_banana.jpg", "one/a.jpg"), ("neg_coffee_mug.jpg", "two/a.jpg")], into: path("data"))
        let options = try MediaOptions.parse(["--output-dir", path("out"), "--no-progress", path("data/one/a.jpg"), path("data/two/a.jpg")])
        var processor = SizeProcessor()
        XCTAssertThrowsError(try MediaDriver(options: options).run(&processor)) {
            XCTAssertTrue(String(describing: $0).contains("would both write a.jpg"), String(describing: $0))
        }
        XCTAssertEqual(processor.processed, [])
    }

    func testAShardWithNoInputsSaysSoAndSucceeds() throws {
        try copyMedia([("neg_banana.jpg", "a.jpg")], into: path("data"))
        let options = try MediaOptions.parse(["--shard", "2/3", "--output-dir", path("out"), "--no-progress", path("data")])
        var processor = SizeProcessor()
        XCTAssertTrue(try MediaDriver(options: options).run(&processor))
        XCTAssertEqual(processor.processed, [])
        let program = try run(["pose", "--model", try poseModel(), "--shard", "1/2", "--output-dir", path("out"), path("data")], name: "empty")
        XCTAssertEqual(program.status, 0, program.stderr)
        XCTAssertTrue(program.stderr.contains("shard 1/2 has no inputs (1 in all): nothing to do"), program.stderr)
    }

    // MARK: - The program on real media

    /// Photos (one in a subfolder) and two clips: the 4 shards, two by `--shard` and two as an
    /// Indexed Job runs them, write the same files with the same bytes as one run.
    func testFourShardsWriteExactlyTheOutputsOfOneRun() throws {
        let videos = path("videos")
        try copyMedia([
            ("pose_fullbody_yoga_warrior.jpg", "yoga.jpg"), ("pose_fullbody_frisbee.jpg", "park/frisbee.jpg"),
            ("pose_upperbody_portrait_arms_crossed.jpg", "portrait.jpg"), ("neg_giraffes.jpg", "giraffes.jpg"),
            ("video_pose_arms_raise_indoor.mp4", "arms.mp4"), ("video_hand_samples_test.mp4", "park/hands.mp4"),
        ], into: videos)
        let model = try poseModel()
        let one = try run(["pose", "--model", model, "--no-progress", "--output-dir", path("one"), videos], name: "one")
        XCTAssertEqual(one.status, 0, one.stderr)
        let expected = files(under: path("one"))
        XCTAssertEqual(Set(expected.keys), [
            "yoga.jpg.json", "park/frisbee.jpg.json", "portrait.jpg.json", "giraffes.jpg.json", "arms.mp4.jsonl", "park/hands.mp4.jsonl",
        ])
        var shardInputs = 0
        for index in 0..<4 {
            let byIndexedJob = index >= 2
            let arguments = ["pose", "--model", model, "--no-progress", "--output-dir", path("sharded"), videos]
                + (byIndexedJob ? ["--shard-count", "4"] : ["--shard", "\(index)/4"])
            let shard = try run(
                arguments, environment: byIndexedJob ? [Shard.indexVariable: "\(index)"] : [:], name: "shard\(index)")
            XCTAssertEqual(shard.status, 0, shard.stderr)
            let line = try XCTUnwrap(shard.stderr.firstMatch(of: /shard (\d)\/4: (\d) of 6 inputs/), shard.stderr)
            XCTAssertEqual(Int(line.output.1), index)
            shardInputs += Int(line.output.2) ?? 0
        }
        XCTAssertEqual(shardInputs, 6)
        let sharded = files(under: path("sharded"))
        XCTAssertEqual(Set(sharded.keys), Set(expected.keys))
        for (name, bytes) in expected {
            XCTAssertEqual(sharded[name], bytes, "\(name) differs between the shards and one run")
        }
        // The records are real: every frame of each clip, a pose in the yoga photo.
        let arms = try XCTUnwrap(String(data: try XCTUnwrap(expected["arms.mp4.jsonl"]), encoding: .utf8))
        XCTAssertEqual(arms.split(separator: "\n").count, 120)
        let yoga = try XCTUnwrap(try JSONSerialization.jsonObject(with: try XCTUnwrap(expected["yoga.jpg.json"])) as? [String: Any])
        XCTAssertEqual(((yoga["pose"] as? [String: Any])?["landmarks"] as? [Any])?.count, 1)
    }

    /// Five clips; the run is killed (SIGKILL) as soon as the first records file appears, then
    /// run again with --skip-existing: the files finished before are kept as they were (same
    /// inode, same modification time), the others are written, every one complete, and no
    /// temporary file is left.
    func testShardKilledHalfWayRunsAgainWithoutRedoingFinishedFiles() throws {
        let videos = path("videos")
        let clips = [
            ("video_pose_arms_raise_indoor.mp4", "a.mp4"), ("video_hand_samples_test.mp4", "b.mp4"),
            ("video_pose_squats.mp4", "c.mp4"), ("video_upperbody_hands_talking.mp4", "d.mp4"),
            ("video_hand_asl_letters.mp4", "e.mp4"),
        ]
        try copyMedia(clips, into: videos)
        var frames: [String: Int] = [:]
        for (_, name) in clips {
            let reader = try VideoReader(path: videos + "/" + name)
            var count = 0
            while try reader.nextFrame() != nil { count += 1 }
            frames[name + ".jsonl"] = count
        }
        let out = path("out")
        let arguments = ["pose", "--model", try poseModel(), "--no-progress", "--output-dir", out, "--skip-existing", "--shard", "0/1", videos]
        let first = try start(arguments, name: "killed")
        let appeared = first.wait(seconds: 600) { !self.finishedRecords(in: out).isEmpty }
        first.kill()
        XCTAssertTrue(appeared, "no records file appeared: \(first.errorText())")
        let finished = finishedRecords(in: out)
        XCTAssertLessThan(finished.count, clips.count, "the run ended before it was killed; nothing was left to do again")
        var identities: [String: (inode: Int, modified: Date)] = [:]
        for name in finished {
            let attributes = try fm.attributesOfItem(atPath: out + "/" + name)
            identities[name] = (try XCTUnwrap(attributes[.systemFileNumber] as? Int), try XCTUnwrap(attributes[.modificationDate] as? Date))
        }

        let again = try run(arguments, name: "again")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("\(finished.count) input(s) skipped: their records in \(out) are complete"), again.stderr)
        let all = files(under: out)
        XCTAssertEqual(Set(all.keys), Set(frames.keys), "only the records files, no temporary file")
        for (name, bytes) in all {
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertEqual(lines.count, (frames[name] ?? 0) + 1, "\(name): one line per frame, ending in a newline")
            XCTAssertEqual(lines.last, "", name)
            for line in lines.dropLast() {
                XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.utf8)), "\(name): a line is not JSON")
            }
        }
        for (name, identity) in identities {
            let attributes = try fm.attributesOfItem(atPath: out + "/" + name)
            XCTAssertEqual(attributes[.systemFileNumber] as? Int, identity.inode, "\(name) was written again")
            XCTAssertEqual(attributes[.modificationDate] as? Date, identity.modified, "\(name) was written again")
        }
    }

    /// The records files (not temporary files) in `folder`.
    private func finishedRecords(in folder: String) -> [String] {
        ((try? fm.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".jsonl") && !$0.hasPrefix(".") }.sorted()
    }
}
