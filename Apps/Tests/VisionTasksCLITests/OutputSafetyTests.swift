import ArgumentParser
import Foundation
import MediaIO
import TestSupport
@testable import VisionTasks
@testable import VisionTasksCLI
import XCTest

/// Outputs never destroy inputs or special files, full disks are errors, directory
/// scans terminate and visit each file once, and numeric options are range-checked.
final class OutputSafetyTests: XCTestCase {
    private var dir: URL!
    private let fm = FileManager.default

    override func setUpWithError() throws {
        dir = fm.temporaryDirectory.appendingPathComponent("output-safety-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? fm.removeItem(at: dir) }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// A small PNG at `name`; returns its path.
    @discardableResult
    private func image(_ name: String) throws -> String {
        let pixels = try PixelBuffer(width: 8, height: 6, format: .rgb8, bytes: [UInt8](repeating: 90, count: 8 * 6 * 3))
        try Data(ImageEncoder.png(pixels)).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    private func run(_ arguments: [String]) throws -> (ok: Bool, processor: SizeProcessor) {
        let options = try MediaOptions.parse(arguments + ["--no-progress"])
        var processor = SizeProcessor()
        let ok = try MediaDriver(options: options).run(&processor)
        return (ok, processor)
    }

    private func device(_ name: String, minor: UInt32) throws -> String { try DeviceNodes.make(name, minor: minor, in: dir) }

    private func fileType(_ path: String) -> mode_t { DeviceNodes.fileType(path) }

    // MARK: - Outputs (critical)

    func testOutputThatIsAnInputIsRefusedAndTheInputKept() throws {
        let input = try image("in.png")
        let original = try Data(contentsOf: URL(fileURLWithPath: input))
        try fm.createSymbolicLink(atPath: path("link.png"), withDestinationPath: input)
        // `gesture in.jpg -o in.jpg` must not leave in.jpg empty, through a symlink either.
        for target in [input, path("link.png")] {
            XCTAssertThrowsError(try run([input, "-o", target])) { XCTAssertTrue("\($0)".contains("refusing to write over an input"), "\($0)") }
            XCTAssertThrowsError(try run([input, "--annotate", target])) { XCTAssertTrue("\($0)".contains("input"), "\($0)") }
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: input)), original)
        }
        // A mask that would land on another input stops the run; nothing is overwritten.
        let second = try image("in_mask0.png")
        let secondBytes = try Data(contentsOf: URL(fileURLWithPath: second))
        XCTAssertThrowsError(try run([input, second, "--masks", dir.path, "-o", path("out.jsonl")])) {
            XCTAssertTrue("\($0)".contains("in_mask0.png: refusing to write over an input"), "\($0)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: second)), secondBytes)
    }

    func testNothingIsTruncatedWhenNoInputCouldBeRead() throws {
        let output = path("results.json")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: output))
        XCTAssertFalse(try run([path("missing.png"), "-o", output]).ok)
        XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), "precious")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 4]).write(to: URL(fileURLWithPath: path("broken.jpg")))
        XCTAssertFalse(try run([path("broken.jpg"), "-o", output]).ok)
        XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), "precious")
    }

    func testOutputIsWrittenThroughSymlinksFIFOsAndDevicesKeepingPermissions() throws {
        let input = try image("in.png")
        // A symlink stays a symlink; its target gets the records.
        let target = path("real.json")
        try Data().write(to: URL(fileURLWithPath: target))
        XCTAssertEqual(chmod(target, 0o640), 0)
        try fm.createSymbolicLink(atPath: path("link.json"), withDestinationPath: target)
        XCTAssertTrue(try run([input, "-o", path("link.json")]).ok)
        XCTAssertEqual(fileType(path("link.json")), S_IFLNK)
        XCTAssertTrue(try String(contentsOfFile: target, encoding: .utf8).contains("\"size\""))
        XCTAssertEqual(try (fm.attributesOfItem(atPath: target)[.posixPermissions] as? NSNumber)?.intValue, 0o640)
        // A character device stays a device (as root, /dev/null must not become a regular file).
        let null = try device("null", minor: 3)
        XCTAssertTrue(try run([input, "-o", null]).ok)
        XCTAssertEqual(fileType(null), S_IFCHR)
        // A FIFO is written to, not replaced.
        let fifo = path("pipe")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let received = ReceivedBytes()
        let reader = Thread {
            received.data = (try? FileHandle(forReadingAtPath: fifo)?.readToEnd()) ?? Data()
            received.done.signal()
        }
        reader.start()
        XCTAssertTrue(try run([input, "-o", fifo]).ok)
        XCTAssertEqual(received.done.wait(timeout: .now() + 30), .success)
        XCTAssertTrue(String(decoding: received.data, as: UTF8.self).contains("\"size\""))
        XCTAssertEqual(fileType(fifo), S_IFIFO)
    }

    func testFullDiskIsAnErrorForFilesAndStandardOutput() throws {
        let input = try image("in.png")
        let full = try device("full", minor: 7)
        // A full disk is an error with the system's message, not a crash.
        XCTAssertThrowsError(try run([input, "-o", full])) { XCTAssertTrue("\($0)".contains("No space left"), "\($0)") }
        XCTAssertEqual(fileType(full), S_IFCHR)
        // So is stdout on a full disk (not exit 0 with truncated output).
        let saved = dup(STDOUT_FILENO)
        let fullDescriptor = open(full, O_WRONLY)
        XCTAssertGreaterThanOrEqual(fullDescriptor, 0)
        fflush(nil)
        dup2(fullDescriptor, STDOUT_FILENO)
        let outcome = Result { try run([input, "--output-format", "jsonl"]) }
        dup2(saved, STDOUT_FILENO)
        close(fullDescriptor)
        close(saved)
        XCTAssertThrowsError(try outcome.get()) { XCTAssertTrue("\($0)".contains("No space left"), "\($0)") }
    }

    // MARK: - Directory scans (high, low)

    func testDirectoryScanSurvivesCyclesAndSkipsSpecialFilesWithAMessage() throws {
        let root = path("d")
        try fm.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try image("d/a.png")
        try image("d/sub/b.png")
        // Link cycles: `up` must not make the scan run forever, nor `self` visit every file again.
        try fm.createSymbolicLink(atPath: root + "/sub/up", withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: root + "/self", withDestinationPath: ".")
        // A FIFO named like an image must not hang the scan.
        XCTAssertEqual(mkfifo(root + "/c.png", 0o600), 0)
        let found = InputEnumerator.enumerate([root], raw: false)
        XCTAssertEqual(found.inputs.map(\.path), [root + "/a.png", root + "/sub/b.png"])
        XCTAssertTrue(found.problems.isEmpty, "\(found.problems)")
        XCTAssertTrue(found.notes.contains { $0.contains("c.png") && $0.contains("not a regular file") }, "\(found.notes)")
        let result = try run([root, "-o", path("out.jsonl")])
        XCTAssertTrue(result.ok)
        XCTAssertEqual(result.processor.processed.count, 2)
    }

    func testBrokenLinksAndBadNamesInADirectoryAreReported() throws {
        let root = path("d")
        try fm.createDirectory(atPath: root, withIntermediateDirectories: true)
        try image("d/a.png")
        try fm.createSymbolicLink(atPath: root + "/gone.png", withDestinationPath: "nowhere.png")
        // A name that is not UTF-8 (Latin-1 "é").
        let bad = Array(root.utf8) + Array("/caf".utf8) + [0xE9] + Array(".png".utf8) + [0]
        let fd = bad.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o600) } }
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        let found = InputEnumerator.enumerate([root], raw: false)
        XCTAssertEqual(found.inputs.map(\.path), [root + "/a.png"])
        XCTAssertTrue(found.problems.contains { $0.contains("gone.png") && $0.contains("broken symlink") }, "\(found.problems)")
        XCTAssertTrue(found.problems.contains { $0.contains("not valid UTF-8") }, "\(found.problems)")
    }

    /// An unreadable subdirectory is reported (not skipped with exit 0 and no message). As
    /// root every folder is readable, so the scan runs as `nobody` (effective uid only, and
    /// only for the scan) to see what a user sees.
    func testUnreadableSubdirectoryIsReported() throws {
        let root = path("d")
        try fm.createDirectory(atPath: root + "/locked", withIntermediateDirectories: true)
        try image("d/a.png")
        try image("d/locked/b.png")
        XCTAssertEqual(chmod(root + "/locked", 0), 0)
        defer { chmod(root + "/locked", 0o755) }
        let found: InputEnumerator.Result
        if geteuid() == 0 {
            guard seteuid(65534) == 0 else { throw XCTSkip("cannot scan as another user (seteuid failed)") }
            found = InputEnumerator.enumerate([root], raw: false)
            XCTAssertEqual(seteuid(0), 0)
        } else {
            found = InputEnumerator.enumerate([root], raw: false)
        }
        XCTAssertEqual(found.inputs.map(\.path), [root + "/a.png"])
        XCTAssertTrue(
            found.problems.contains { $0.contains("d/locked: cannot read the folder: Permission denied") }, "\(found.problems)")
    }

    // MARK: - Options (critical, medium)

    func testThreadsAndFPSAreRangeChecked() throws {
        // --threads 100000 must not start 100000 threads per model.
        XCTAssertThrowsError(try TaskModelOption.parse(["--threads", "100000"])) {
            XCTAssertTrue(TaskModelOption.message(for: $0).contains("between 1 and"), TaskModelOption.message(for: $0))
        }
        XCTAssertNoThrow(try TaskModelOption.parse(["--threads", "\(BaseOptions.maxNumThreads)"]))
        // --fps 1e-300 would overflow a timestamp's conversion; --fps 2000 would fail on frame 1 or 2.
        for fps in ["1e-300", "2000", "nan", "0"] {
            XCTAssertThrowsError(try MediaOptions.parse(["x.rgb", "--raw", "2x2:rgb24", "--fps", fps]), fps)
        }
        XCTAssertNoThrow(try MediaOptions.parse(["x.rgb", "--raw", "2x2:rgb24", "--fps", "1000"]))
    }

    // MARK: - Refusals and messages (low)

    func testOptionsThatDoNothingAreRefusedOrWarned() throws {
        // `gesture --masks` is refused, not accepted and ignored (with an empty directory made).
        XCTAssertThrowsError(try GestureCommand.parse(["x.jpg", "--masks", path("m")]))
        XCTAssertThrowsError(try HandsCommand.parse(["x.jpg", "--masks", path("m")]))
        XCTAssertFalse(fm.fileExists(atPath: path("m")))
        // NaN is refused here as by every other option.
        XCTAssertThrowsError(try GestureCommand.parse(["x.jpg", "--score-threshold", "nan"]))
        XCTAssertThrowsError(try GestureCommand.parse(["x.jpg", "--custom-score-threshold", "nan"]))
        // `--allow Bogus` or `--allow thumb_up` would filter nothing: a warning says so.
        // Without the model's names (it could not be read) the canned gesture names are used.
        let allow = try GestureCommand.parse(["x.jpg", "--allow", "Bogus, thumb_up,Thumb_Up"]).classifierListWarnings(names: nil)
        XCTAssertEqual(allow.count, 1)
        XCTAssertTrue(allow.first?.hasPrefix("warning: --allow: no canned gesture is named Bogus, thumb_up (") ?? false, "\(allow)")
        XCTAssertEqual(try GestureCommand.parse(["x.jpg", "--deny", "None,Victory"]).classifierListWarnings(names: nil), [])
    }

    func testHelpTexts() {
        // No hard line breaks inside sentences (the terminal re-wraps them).
        let pose = PoseCommand.helpMessage(columns: 400)
        XCTAssertTrue(pose.contains("frame to frame and, with --num-poses 1, smoothed over time"), pose)
        // --masks is shared by every task command's options: its help says it is pose only.
        XCTAssertTrue(GestureCommand.helpMessage(columns: 400).contains("pose only: write segmentation masks"))
        // On an 80-column terminal every example fits on its line: an example cut mid-command
        // ("... | vision-tasks pose --raw", then "640x480:rgb24 -" flush left on the next line)
        // would not run when copied. A wrapped line would start flush left.
        let commands: [(String, String)] = [
            ("gesture", GestureCommand.helpMessage(columns: 80)), ("hands", HandsCommand.helpMessage(columns: 80)),
            ("pose", PoseCommand.helpMessage(columns: 80)), ("swipe", SwipeCommand.helpMessage(columns: 80)),
            ("serve", ServeCommand.helpMessage(columns: 80)), ("media info", MediaInfoCommand.helpMessage(columns: 80)),
            ("media decode", MediaDecodeCommand.helpMessage(columns: 80)),
        ]
        for (name, help) in commands {
            guard let examples = help.range(of: "Examples:") else { XCTFail("\(name): no examples"); continue }
            let block = String(help[examples.upperBound...]).components(separatedBy: "USAGE:")[0]
            for line in block.split(separator: "\n") where !line.hasPrefix("  ") {
                XCTFail("\(name): an example wrapped at 80 columns: '\(line)'")
            }
        }
    }

    func testAnnotationExtensionMustMatchTheInput() throws {
        let input = try image("in.png")
        // An image annotated to .mp4, or a video to .png, is refused (no file of the other kind
        // under that name).
        XCTAssertThrowsError(try run([input, "--annotate", path("drawn.mp4")])) { XCTAssertTrue("\($0)".contains("image file"), "\($0)") }
        let raw = path("frames.rgb")
        try Data(repeating: 0, count: 2 * 2 * 3 * 2).write(to: URL(fileURLWithPath: raw))
        XCTAssertThrowsError(try run([raw, "--raw", "2x2:rgb24", "--annotate", path("drawn.png")])) {
            XCTAssertTrue("\($0)".contains("video file"), "\($0)")
        }
        // -o and --annotate on one file are refused (they would make a file that is neither).
        XCTAssertThrowsError(try run([input, "-o", path("same.png"), "--annotate", path("./same.png")])) {
            XCTAssertTrue("\($0)".contains("same file"), "\($0)")
        }
        // An --annotate file that cannot be created fails before anything is read or written
        // (not after the records were written).
        XCTAssertThrowsError(try run([input, "-o", path("o.json"), "--annotate", path("no/such/folder/x.png")]))
        XCTAssertFalse(fm.fileExists(atPath: path("o.json")))
        XCTAssertFalse(fm.fileExists(atPath: path("drawn.mp4")))
        XCTAssertFalse(fm.fileExists(atPath: path("drawn.png")))
    }

    func testMessagesSayWhatIsWrong() throws {
        let input = try image("in.png")
        // A file as the masks folder is named as such, not a raw NSCocoaErrorDomain error.
        try Data().write(to: URL(fileURLWithPath: path("file")))
        XCTAssertThrowsError(try run([input, "--masks", path("file"), "-o", path("o.json")])) {
            XCTAssertTrue("\($0)".contains("is a file, not a directory"), "\($0)")
        }
        // A 30000x30000 image is too large by its pixel count, not by "more than the 65535 a side".
        let huge = MediaError(source: "x.png", reason: .tooLarge(width: 30000, height: 30000)).description
        XCTAssertTrue(huge.contains("900000000 pixels") && !huge.contains("a side"), huge)
        // A missing model names the model folder too, not only the current directory.
        XCTAssertThrowsError(try TaskModelOption.locate("nosuch-\(UUID().uuidString).task")) {
            XCTAssertTrue("\($0)".contains(ModelStore().directory.path), "\($0)")
        }
        // A device is "a device", not "is empty".
        let found = InputEnumerator.enumerate(["/dev/zero"], raw: false)
        XCTAssertTrue(found.inputs.isEmpty)
        XCTAssertTrue(found.problems.first?.contains("is a device") ?? false, "\(found.problems)")
    }

    func testWronglySizedRawFileFailsBeforeTheFirstFrame() throws {
        let raw = path("frames.rgb")
        // Five frames' worth of 4x4 rgb24 read as 3x3: 240 bytes are not a whole number of 27-byte frames.
        try Data(repeating: 0, count: 4 * 4 * 3 * 5).write(to: URL(fileURLWithPath: raw))
        XCTAssertThrowsError(try RawFrameReader(path: raw, spec: RawFrameSpec(parsing: "3x3:rgb24"))) {
            // Refused before the first frame (not frames of garbage, then a short last frame).
            XCTAssertTrue("\($0)".contains("3x3 rgb24 frames"), "\($0)")
        }
        let result = try run([raw, "--raw", "3x3:rgb24", "-o", path("o.jsonl")])
        XCTAssertFalse(result.ok)
        XCTAssertTrue(result.processor.processed.isEmpty, "no garbage frame is processed")
    }

    // MARK: - Model paths, tensor files and pipes

    func testModelPathsAndTensorInputsSayWhatIsWrong() throws {
        // "" is an empty name, not the model folder itself (then "NSCocoaErrorDomain error 256").
        XCTAssertThrowsError(try TaskModelOption.locate("")) { XCTAssertTrue("\($0)".contains("empty"), "\($0)") }
        XCTAssertThrowsError(try ModelInfoCommand.parse([dir.path]).run()) { XCTAssertTrue("\($0)".contains("is a directory"), "\($0)") }
        // /dev/zero as a tensor file is read only as far as the input needs, plus one byte, and
        // the message says it has more than that (not "You don't have permission").
        let model = try SharedTestData.installedModel("hand_landmark_full.tflite").path
        XCTAssertThrowsError(try ModelInvokeCommand.parse([model, "--input", "/dev/zero", "--output-dir", path("out")]).run()) {
            XCTAssertTrue("\($0)".contains("(602112 bytes) but /dev/zero has more than that"), "\($0)")
        }
        XCTAssertThrowsError(try ModelInvokeCommand.parse([model, "--input", dir.path, "--output-dir", path("out")]).run()) {
            XCTAssertTrue("\($0)".contains("Is a directory"), "\($0)")
        }
        // A FIFO is read as a shell tool reads it (not "You don't have permission").
        let fifo = path("tensor.f32")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // A reader that gives up early must fail the test, not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                handle.write(Data(count: 224 * 224 * 3 * 4))
                try? handle.close()
            }
        }
        writer.start()
        XCTAssertNoThrow(try ModelInvokeCommand.parse([model, "--input", fifo, "--output-dir", path("out")]).run())
        XCTAssertEqual(DeviceNodes.fileType(path("out/output0.f32")), S_IFREG)
    }

    /// `model invoke` never writes `DIR/output<i>.f32` over one of its own `--input` files
    /// (chaining two models through one folder), the data loss every `-o` refuses too: it
    /// refuses before writing any output, by device and inode (a symlink to an input too).
    func testModelInvokeNeverWritesOverItsInputs() throws {
        let model = try SharedTestData.installedModel("hand_landmark_full.tflite").path
        let values: [Float] = (0..<(224 * 224 * 3)).map { Float($0 % 251) / 251 }
        let tensor = values.withUnsafeBytes { Data($0) }
        let chained = path("out/output0.f32")
        try fm.createDirectory(atPath: path("out"), withIntermediateDirectories: true)
        try tensor.write(to: URL(fileURLWithPath: chained))
        XCTAssertThrowsError(try ModelInvokeCommand.parse([model, "--input", chained, "--output-dir", path("out")]).run()) {
            XCTAssertTrue("\($0)".contains("refusing to write over an input"), "\($0)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: chained)), tensor, "the input is intact")
        XCTAssertFalse(fm.fileExists(atPath: path("out/output1.f32")), "nothing was written")
        // The same file through a symlink in another folder.
        try fm.createDirectory(atPath: path("other"), withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: path("other/output2.f32"), withDestinationPath: chained)
        XCTAssertThrowsError(try ModelInvokeCommand.parse([model, "--input", chained, "--output-dir", path("other")]).run())
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: chained)), tensor, "the input is intact")
        // A folder of its own works, and the outputs are the model's (63 landmark values first).
        XCTAssertNoThrow(try ModelInvokeCommand.parse([model, "--input", chained, "--output-dir", path("fresh")]).run())
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("fresh/output0.f32"))).count, 63 * 4)
    }

    func testAPipeIsReadAsAnImageWithoutLosingItsFirstBytes() throws {
        // `cat photo.jpg | vision-tasks hands /dev/stdin`: sniffing the kind must not consume the
        // pipe's first 8 bytes (which would give "not a JPEG or PNG file (starts with 49 46 00 01 ...)").
        let png = try Data(contentsOf: URL(fileURLWithPath: try image("in.png")))
        let fifo = path("pipe")  // no extension, as /dev/stdin
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        signal(SIGPIPE, SIG_IGN)
        func feed(_ bytes: Data) {
            Thread {
                guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
                try? handle.write(contentsOf: bytes)
                try? handle.close()
            }.start()
        }
        feed(png)
        let result = try run([fifo, "-o", path("o.json")])
        XCTAssertTrue(result.ok)
        XCTAssertEqual(result.processor.processed, [fifo])
        // A video through a pipe is not an image: an error (saying to give it as a file), not a crash.
        feed(Data([0, 0, 0, 0x20] + Array("ftypisom".utf8) + [UInt8](repeating: 0, count: 64)))
        let video = try run([fifo, "-o", path("v.json")])
        XCTAssertFalse(video.ok)
        XCTAssertTrue(video.processor.processed.isEmpty)
    }

    func testMasksWithAnAPIWithoutMasksAreRefused() throws {
        // `pose --api mlkit --masks m` is refused (it would create an empty folder and write nothing).
        for api in ["mlkit", "vision"] {
            XCTAssertThrowsError(try PoseCommand.parse(["x.jpg", "--api", api, "--masks", path("m")])) {
                XCTAssertTrue(PoseCommand.message(for: $0).contains("--masks is for --api mediapipe"), PoseCommand.message(for: $0))
            }
        }
        XCTAssertNoThrow(try PoseCommand.parse(["x.jpg", "--api", "mediapipe", "--masks", path("m")]))
        XCTAssertFalse(fm.fileExists(atPath: path("m")))
    }

    func testModelInfoLooksInTheModelFolderAsModelDoes() throws {
        // `model info hand_landmark_full.tflite` looks in the model folder, not only the current directory.
        let installed = try SharedTestData.installedModel("hand_landmark_full.tflite")
        XCTAssertFalse(fm.fileExists(atPath: "hand_landmark_full.tflite"))
        XCTAssertEqual(try TaskModelOption.locate("hand_landmark_full.tflite"), installed.path)
        XCTAssertNoThrow(try ModelInfoCommand.parse(["hand_landmark_full.tflite"]).run())
    }

    func testEmptyNamesAreRefusedAsSuch() throws {
        // An empty name is "an empty string", not "Error: : cannot write: No such file or
        // directory", "--masks : cannot create the directory" or ": no such file or directory".
        for arguments in [["x.jpg", "-o", ""], ["x.jpg", "--annotate", ""], ["x.jpg", "--masks", ""], [""]] {
            XCTAssertThrowsError(try MediaOptions.parse(arguments), "\(arguments)") {
                XCTAssertTrue(MediaOptions.message(for: $0).contains("empty string"), MediaOptions.message(for: $0))
            }
        }
        XCTAssertThrowsError(try SwipeCommand.parse(["x.mp4", "-o", ""]))
    }

    func testMediaDecodeRefusesDevices() throws {
        // `media decode` says "is a device", as the task commands do (not "/dev/zero: is empty").
        XCTAssertThrowsError(try MediaDecodeCommand.parse(["/dev/zero", "-o", path("z.rgb")]).run()) {
            XCTAssertTrue("\($0)".contains("is a device"), "\($0)")
        }
        XCTAssertFalse(fm.fileExists(atPath: path("z.rgb")))
    }
}

private final class ReceivedBytes: @unchecked Sendable {
    var data = Data()
    let done = DispatchSemaphore(value: 0)
}
