import ArgumentParser
import Foundation
import MediaIO
import TestSupport
@_spi(Apps) @testable import VisionTasks
@testable import VisionTasksCLI
import XCTest

/// A test double: reports each frame's mean colour, and marks the image's centre.
private struct MeanColourProcessor: FrameProcessor {
    struct Result: Encodable {
        var mean: [Double]
    }

    var resultKey: String { "meanColour" }
    var begun: [(String, RunningMode)] = []

    mutating func begin(input: MediaInput, mode: RunningMode) throws { begun.append((input.path, mode)) }

    mutating func process(image: MPImage, timestampInMilliseconds: Int, frameIndex: Int) throws -> FrameOutput {
        let rgb = try image.uprightRGB()
        var sums = [0.0, 0.0, 0.0]
        for y in 0..<rgb.height {
            for x in 0..<rgb.width {
                for c in 0..<3 { sums[c] += Double(rgb.bytes[y * rgb.bytesPerRow + 3 * x + c]) }
            }
        }
        let mean = sums.map { ($0 / Double(rgb.width * rgb.height) * 10).rounded() / 10 }
        var overlay = Overlay.skeleton(
            normalizedPoints: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.75)], connections: [(0, 1), (1, 2), (2, 0)],
            imageWidth: image.width, imageHeight: image.height, label: "Mean 0.5")
        overlay.labels.append(Overlay.Label(text: "frame \(frameIndex)", x: 2, y: 2))
        let mask = try PixelBuffer(width: 4, height: 4, format: .gray8, bytes: [UInt8](repeating: 200, count: 16))
        return FrameOutput(record: Result(mean: mean), summary: "mean \(mean)", overlay: overlay, masks: [mask])
    }
}

final class MediaDriverTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("driver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    private func run(_ arguments: [String]) throws -> (ok: Bool, lines: [String], processor: MeanColourProcessor) {
        let output = dir.appendingPathComponent("out-\(UUID().uuidString).txt").path
        let options = try MediaOptions.parse(arguments + ["--output", output, "--no-progress"])
        var processor = MeanColourProcessor()
        let ok = try MediaDriver(options: options).run(&processor)
        // A run that wrote no record leaves no output file.
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (ok, text.split(separator: "\n").map(String.init), processor)
    }

    func testImageGivesOneJSONObjectAndAnAnnotatedPNG() throws {
        let image = try SharedTestData.file("media/neg_banana.jpg").path
        let annotated = dir.appendingPathComponent("banana.png").path
        let result = try run([image, "--annotate", annotated, "--masks", dir.appendingPathComponent("masks").path])
        XCTAssertTrue(result.ok)
        let object = try JSONSerialization.jsonObject(with: Data(result.lines.joined().utf8)) as? [String: Any]
        XCTAssertEqual(object?["file"] as? String, image)
        XCTAssertEqual(object?["width"] as? Int, 640)
        XCTAssertEqual(object?["height"] as? Int, 427)
        XCTAssertNotNil((object?["meanColour"] as? [String: Any])?["mean"])
        let drawn = try ImageDecoder.decode(contentsOfFile: annotated).pixels
        XCTAssertEqual(drawn.width, 640)
        let original = try ImageDecoder.decode(contentsOfFile: image).pixels
        XCTAssertGreaterThan(TestImagesDiff.meanDifference(drawn, original), 0.1, "overlay drawn")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("masks/neg_banana_mask0.png").path))
        XCTAssertEqual(result.processor.begun.first?.1, .image)
    }

    func testVideoGivesOneLinePerFrameAndAnAnnotatedMP4() throws {
        let video = try SharedTestData.file("media/video_pose_squats.mp4").path
        let annotated = dir.appendingPathComponent("squats.mp4").path
        let result = try run([video, "--annotate", annotated])
        XCTAssertTrue(result.ok)
        XCTAssertEqual(result.lines.count, 65)
        let last = try JSONSerialization.jsonObject(with: Data(result.lines[64].utf8)) as? [String: Any]
        XCTAssertEqual(last?["frame"] as? Int, 64)
        XCTAssertEqual(last?["timestampInMilliseconds"] as? Int, 12800)
        XCTAssertEqual(result.processor.begun.first?.1, .video)
        let reader = try VideoReader(path: annotated)
        XCTAssertEqual(Array(reader).count, 65)
        XCTAssertEqual(reader.info.width, 720)
    }

    func testDirectoryInNameOrderSkipsBadFilesAndFails() throws {
        let media = try SharedTestData.file("media")
        let input = dir.appendingPathComponent("in/sub")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: media.appendingPathComponent("neg_banana.jpg"), to: input.appendingPathComponent("b.jpg"))
        try FileManager.default.copyItem(at: media.appendingPathComponent("neg_giraffes.jpg"), to: input.appendingPathComponent("a.jpg"))
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 4]).write(to: input.appendingPathComponent("c_broken.jpg"))
        try Data("notes".utf8).write(to: input.appendingPathComponent("readme.txt"))
        let result = try run([dir.appendingPathComponent("in").path, "--output-format", "text"])
        XCTAssertFalse(result.ok, "a broken file makes the run fail")
        XCTAssertEqual(result.lines.count, 2)
        XCTAssertTrue(result.lines[0].contains("a.jpg"))
        XCTAssertTrue(result.lines[1].contains("b.jpg"))
        XCTAssertEqual(result.processor.begun.count, 2)
    }

    func testInputsWithTheSameNameGetDistinctOutputNames() {
        let inputs = ["a/x.jpg", "b/x.jpg", "x.png", "y.mp4", "-", "x-2.jpg"].map {
            MediaInput(path: $0, kind: $0.hasSuffix("mp4") ? .video : .image)
        }
        XCTAssertEqual(MediaDriver.outputNames(inputs), ["x", "x-2", "x-3", "y", "stdin", "x-2-2"])
    }

    func testRawFramesFromAFileWithTimestampsFromFPS() throws {
        let spec = try RawFrameSpec(parsing: "4x2:nv12")
        XCTAssertEqual(spec.frameByteCount, 8 + 4)
        let frame: [UInt8] = [235, 235, 235, 235, 235, 235, 235, 235, 128, 128, 128, 128]
        let raw = dir.appendingPathComponent("frames.nv12")
        try Data(frame + frame + frame).write(to: raw)
        let result = try run([raw.path, "--raw", "4x2:nv12", "--fps", "20"])
        XCTAssertTrue(result.ok)
        XCTAssertEqual(result.lines.count, 3)
        let second = try JSONSerialization.jsonObject(with: Data(result.lines[1].utf8)) as? [String: Any]
        XCTAssertEqual(second?["timestampInMilliseconds"] as? Int, 50)
        XCTAssertEqual((second?["meanColour"] as? [String: Any])?["mean"] as? [Double], [255, 255, 255])
        // A partial last frame is reported.
        try Data(frame + frame.prefix(5)).write(to: raw)
        XCTAssertFalse(try run([raw.path, "--raw", "4x2:nv12"]).ok)
        XCTAssertThrowsError(try RawFrameSpec(parsing: "4x2:yuv9"))
        XCTAssertThrowsError(try RawFrameSpec(parsing: "70000x2:rgb24"))
    }

    /// Sides that are not numbers are refused, not dropped (dropping them would read these as
    /// 640x480, or 640x48, and run on frames of a size nobody gave).
    func testRawSpecsWithOddSidesAreRefused() throws {
        for odd in ["640xabcx480:rgb24", "640xx480:rgb24", "x640x480:rgb24", "640x480x:rgb24", "640x 480:rgb24",
                    "640x+480:rgb24", "640x-480:rgb24", "640x٤٨٠:rgb24", "640x480x3:rgb24", "640:rgb24", "x:rgb24", ":rgb24"] {
            XCTAssertThrowsError(try RawFrameSpec(parsing: odd), odd) {
                XCTAssertTrue("\($0)".contains("WIDTHxHEIGHT:FORMAT") || "\($0)".contains("--raw"), "\(odd): \($0)")
            }
        }
        let spec = try RawFrameSpec(parsing: "640X0480:RGB24")
        XCTAssertEqual([spec.width, spec.height], [640, 480])
        XCTAssertEqual(spec.formatName, "rgb24")
    }

    func testMissingInputFailsAndProgressFormats() throws {
        XCTAssertFalse(try run([dir.appendingPathComponent("missing.jpg").path]).ok)
        XCTAssertEqual(ProgressReporter.clock(75), "1:15")
        let progress = ProgressReporter(enabled: true, totalFiles: 4, isTerminal: false)
        progress.beginFile("a.mp4", frames: 10)
        progress.frameDone()
        XCTAssertTrue(progress.status(bar: true).contains("frames 1/10"))
        XCTAssertTrue(progress.status(bar: true).hasPrefix("[---"))
    }

    func testMediaInfoDescribesImagesAndVideos() throws {
        let image = MediaInput(path: try SharedTestData.file("media/neg_banana.jpg").path, kind: .image)
        XCTAssertTrue(try MediaInfoCommand.describe(image, countFrames: false).contains("640x427"))
        let video = MediaInput(path: try SharedTestData.file("media/video_pose_squats.mp4").path, kind: .video)
        XCTAssertTrue(try MediaInfoCommand.describe(video, countFrames: true).contains("65 frames decoded"))
    }
}

enum TestImagesDiff {
    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let pa = a.convertedToRGB8().packed(), pb = b.convertedToRGB8().packed()
        guard pa.bytes.count == pb.bytes.count else { return .infinity }
        var sum = 0
        for i in 0..<pa.bytes.count { sum += abs(Int(pa.bytes[i]) - Int(pb.bytes[i])) }
        return Double(sum) / Double(pa.bytes.count)
    }
}
