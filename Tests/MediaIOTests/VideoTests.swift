import Foundation
@testable import MediaIO
import TestSupport
import VisionTasks
import XCTest

final class VideoTests: XCTestCase {
    private static let videos = [
        "video_hand_asl_letters.mp4", "video_hand_samples_test.mp4", "video_pose_arms_raise_indoor.mp4",
        "video_pose_squats.mp4", "video_upperbody_hands_talking.mp4", "gif_two_hands_with_mediapipe_overlay.gif",
    ]

    /// Frame counts equal the reference frame lists; timestamps are within 1 ms of theirs
    /// (round(frame x 1000 / fps)).
    func testFrameCountsAndTimestampsMatchTheReferences() throws {
        let reference = try SharedTestData.file("reference")
        var report: [String] = []
        for name in Self.videos {
            let url = try SharedTestData.file("media/\(name)")
            let lines = try String(contentsOf: reference.appendingPathComponent(
                (name as NSString).deletingPathExtension + ".jsonl"), encoding: .utf8).split(separator: "\n")
            let expected = try lines.map { line -> Int in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["timestampInMilliseconds"] as? Int ?? -1
            }
            let reader = try VideoReader(path: url.path)
            var count = 0
            var worst = 0
            var previous = -1
            for frame in reader {
                XCTAssertEqual(frame.index, count)
                XCTAssertEqual(frame.image.width, reader.info.width)
                XCTAssertEqual(frame.image.height, reader.info.height)
                XCTAssertEqual(frame.image.format, .rgb8)
                XCTAssertGreaterThan(frame.timestampInMilliseconds, previous)
                previous = frame.timestampInMilliseconds
                if count < expected.count { worst = max(worst, abs(frame.timestampInMilliseconds - expected[count])) }
                count += 1
            }
            XCTAssertNil(reader.failure, "\(name): \(String(describing: reader.failure))")
            XCTAssertEqual(count, expected.count, name)
            XCTAssertLessThanOrEqual(worst, 1, "\(name): timestamps differ by up to \(worst) ms")
            report.append("\(name): \(count) frames (reference \(expected.count)), \(reader.info.framesPerSecond) fps, max timestamp difference \(worst) ms")
        }
        print("video frames vs references:\n  " + report.joined(separator: "\n  "))
    }

    func testAsyncSequenceDeliversTheSameFrames() async throws {
        let url = try SharedTestData.file("media/video_pose_squats.mp4")
        var timestamps: [Int] = []
        for try await frame in try VideoReader(path: url.path) { timestamps.append(frame.timestampInMilliseconds) }
        XCTAssertEqual(timestamps.count, 65)
        XCTAssertEqual(timestamps.prefix(3), [0, 200, 400])
    }

    /// A video cut short yields the frames before the cut, then a truncation error; never hangs.
    func testTruncatedVideoYieldsFramesThenAnError() throws {
        // This file has its index (moov) before the frames, so a cut file still opens.
        let url = try SharedTestData.file("media/video_hand_samples_test.mp4")
        let bytes = try Data(contentsOf: url)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mediaio-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cut = dir.appendingPathComponent("cut.mp4")
        try bytes.prefix(bytes.count * 6 / 10).write(to: cut)
        let reader = try VideoReader(path: cut.path)
        var frames = 0
        var failure: MediaIOError?
        do {
            while try reader.nextFrame() != nil { frames += 1 }
        } catch let error as MediaIOError {
            failure = error
        }
        XCTAssertGreaterThan(frames, 10)
        XCTAssertLessThan(frames, 202)
        guard case .truncated = failure?.reason else { return XCTFail("no truncation error: \(String(describing: failure))") }
        XCTAssertNil(try reader.nextFrame(), "the reader stays finished after the error")

        // As a Sequence the same file ends quietly after the same frames; the error is left in
        // `failure`, which the docs tell a `for frame in reader` loop to check (RunningModes.md).
        let sequence = try VideoReader(path: cut.path)
        var sequenceFrames = 0
        for _ in sequence { sequenceFrames += 1 }
        XCTAssertEqual(sequenceFrames, frames)
        guard case .truncated = sequence.failure?.reason else {
            return XCTFail("the Sequence left no truncation error in failure: \(String(describing: sequence.failure))")
        }

        // A file whose index comes after the frames cannot be opened once cut: an error at once.
        let late = try Data(contentsOf: try SharedTestData.file("media/video_pose_squats.mp4"))
        let lateCut = dir.appendingPathComponent("late.mp4")
        try late.prefix(late.count / 2).write(to: lateCut)
        XCTAssertThrowsError(try VideoReader(path: lateCut.path)) { XCTAssertTrue($0 is MediaIOError) }

        // Cut inside the header: no video at all.
        let stub = dir.appendingPathComponent("stub.mp4")
        try bytes.prefix(200).write(to: stub)
        XCTAssertThrowsError(try VideoReader(path: stub.path).nextFrame()) { XCTAssertTrue($0 is MediaIOError) }
    }

    /// A clip whose edit list starts 2.3 s in (what `ffmpeg -ss 2.3 -i clip.mp4 -c copy` writes):
    /// FFmpeg discards the samples before the edit, so fewer frames than the container's sample
    /// count come out. That is a valid file, not a truncated one (no "is truncated: declares 202
    /// frames", no failure).
    func testEditListGivesFewerFramesThanDeclaredWithoutAnError() throws {
        var bytes = [UInt8](try Data(contentsOf: try SharedTestData.file("media/video_pose_squats.mp4")))
        // The clip: 65 frames at 5 fps, media timescale 10240, one edit starting at media time 0.
        let elst = try XCTUnwrap(Self.find(Array("elst".utf8), in: bytes))
        let mediaTime = elst + 4 + 4 + 4 + 4 // type, version+flags, entry count, segment duration
        XCTAssertEqual(Array(bytes[mediaTime..<mediaTime + 4]), [0, 0, 0, 0])
        let start = UInt32(2.3 * 10240)
        for i in 0..<4 { bytes[mediaTime + i] = UInt8(truncatingIfNeeded: start >> (24 - 8 * i)) }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mediaio-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cut = dir.appendingPathComponent("cut.mp4")
        try Data(bytes).write(to: cut)
        let reader = try VideoReader(path: cut.path)
        XCTAssertEqual(reader.info.declaredFrameCount, 65)
        var frames = 0
        while try reader.nextFrame() != nil { frames += 1 }
        XCTAssertGreaterThan(frames, 40)
        XCTAssertLessThan(frames, 65, "the samples before the edit are discarded")
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    /// A crafted container's numbers cannot trap the time arithmetic: a frame whose
    /// `pts - startTime` overflows `Int64`, or whose huge time in a coarse time base overflows
    /// the conversion to `Int`, is a `MediaIOError` (nil here); ordinary times are unchanged.
    func testFrameTimesFromHostileContainersAreErrorsNotTraps() {
        func ms(_ pts: Int64?, start: Int64 = 0, base: (Int32, Int32) = (1, 1000), index: Int = 0, fps: Double = 25) -> Int? {
            VideoReader.milliseconds(
                pts: pts, startTime: start, timeBase: (num: base.0, den: base.1), index: index, framesPerSecond: fps, previous: -1)
        }
        XCTAssertEqual(ms(1234), 1234)
        XCTAssertEqual(ms(512, start: 0, base: (1, 15360)), 33)
        XCTAssertEqual(ms(nil, index: 3), 120)
        XCTAssertEqual(ms(nil, fps: 0), 0)
        XCTAssertNil(ms(Int64.max, start: -5), "pts - startTime overflows Int64")
        XCTAssertNil(ms(Int64.min + 1, start: 5))
        XCTAssertNil(ms(Int64(1) << 60, base: (1, 1)), "2^60 s is beyond any task timestamp")
        XCTAssertNil(ms(Int64(1) << 40, base: (Int32.max, 1)), "a time base of 2^31 s")
        XCTAssertNil(ms(nil, index: Int.max, fps: 1e-9))
    }

    /// Flipped bytes: frames or typed errors, never a crash or a hang.
    func testCorruptVideoNeverCrashes() throws {
        let url = try SharedTestData.file("media/video_hand_samples_test.mp4")
        var bytes = [UInt8](try Data(contentsOf: url))
        for i in stride(from: bytes.count / 3, to: bytes.count, by: 4099) { bytes[i] ^= 0xFF }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mediaio-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let damaged = dir.appendingPathComponent("damaged.mp4")
        try Data(bytes).write(to: damaged)
        do {
            let reader = try VideoReader(path: damaged.path)
            var frames = 0
            do {
                while try reader.nextFrame() != nil { frames += 1 }
            } catch is MediaIOError {
            }
            XCTAssertLessThanOrEqual(frames, 202)
        } catch is MediaIOError {
        }
        let text = dir.appendingPathComponent("notes.mp4")
        try Data("not a video".utf8).write(to: text)
        XCTAssertThrowsError(try VideoReader(path: text.path)) { XCTAssertTrue($0 is MediaIOError) }
        XCTAssertThrowsError(try VideoReader(path: dir.appendingPathComponent("missing.mp4").path)) {
            XCTAssertEqual(($0 as? MediaIOError)?.reason, .fileNotFound)
        }
    }

    func testWrittenVideoReadsBack() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mediaio-writer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.mp4").path
        let writer = try VideoWriter(path: path, width: 63, height: 47, framesPerSecond: 25)
        let base = TestImages.pattern(width: 63, height: 47)
        for i in 0..<12 { try writer.append(base, timestampInMilliseconds: i * 40) }
        try writer.finish()
        let reader = try VideoReader(path: path)
        XCTAssertEqual(reader.info.width, 64) // padded to even
        XCTAssertEqual(reader.info.height, 48)
        let frames = Array(reader)
        XCTAssertNil(reader.failure)
        XCTAssertEqual(frames.count, 12)
        XCTAssertEqual(frames.map(\.timestampInMilliseconds), (0..<12).map { $0 * 40 })
        XCTAssertThrowsError(try writer.append(base))
    }

    /// A phone video's display matrix ("rotate 90"): frames come upright by default (width and
    /// height swap), as stored when asked; the writer tags streams the same way.
    func testDisplayRotationIsAppliedByDefault() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mediaio-rotate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // Stored 64x48: a green band on top, red below on the left, blue below on the right.
        var bytes = [UInt8](repeating: 0, count: 64 * 48 * 3)
        for y in 0..<48 {
            for x in 0..<64 {
                let colour: [UInt8] = y < 16 ? [0, 220, 0] : (x < 32 ? [220, 0, 0] : [0, 0, 220])
                for c in 0..<3 { bytes[(y * 64 + x) * 3 + c] = colour[c] }
            }
        }
        let stored = try PixelBuffer(width: 64, height: 48, format: .rgb8, bytes: bytes)
        func dominant(_ image: PixelBuffer, _ x: Int, _ y: Int) -> Int {
            let p = image.pixel(x: x, y: y)
            return [p[p.startIndex], p[p.startIndex + 1], p[p.startIndex + 2]].enumerated().max { $0.element < $1.element }?.offset ?? -1
        }
        for (rotation, size) in [(90, (48, 64)), (180, (64, 48)), (270, (48, 64))] {
            let path = dir.appendingPathComponent("rot\(rotation).mp4").path
            let writer = try VideoWriter(path: path, width: 64, height: 48, framesPerSecond: 25, displayRotation: rotation)
            for i in 0..<3 { try writer.append(stored, timestampInMilliseconds: i * 40) }
            try writer.finish()
            let reader = try VideoReader(path: path)
            XCTAssertEqual(reader.info.displayRotation, rotation)
            XCTAssertEqual(reader.info.width, 64)
            let frames = Array(reader)
            XCTAssertEqual(frames.count, 3)
            let upright = try XCTUnwrap(frames.first?.image)
            XCTAssertEqual(upright.width, size.0, "\(rotation)")
            XCTAssertEqual(upright.height, size.1, "\(rotation)")
            // Where the stored top band (green, channel 1) ends up after turning clockwise.
            switch rotation {
            case 90:
                XCTAssertEqual(dominant(upright, 44, 32), 1)  // right side
                XCTAssertEqual(dominant(upright, 10, 5), 0)  // stored left (red) is on top
                XCTAssertEqual(dominant(upright, 10, 60), 2)  // stored right (blue) at the bottom
            case 180:
                XCTAssertEqual(dominant(upright, 32, 44), 1)  // bottom
                XCTAssertEqual(dominant(upright, 5, 10), 2)  // stored right is now left
            default:
                XCTAssertEqual(dominant(upright, 4, 32), 1)  // left side
                XCTAssertEqual(dominant(upright, 30, 5), 2)  // stored right (blue) on top
            }
            let asStored = try XCTUnwrap(Array(try VideoReader(path: path, appliesDisplayRotation: false)).first?.image)
            XCTAssertEqual(asStored.width, 64)
            XCTAssertEqual(dominant(asStored, 32, 4), 1)
        }
        XCTAssertEqual(VideoReader.quarterTurns(-90), 3)
        XCTAssertEqual(VideoReader.quarterTurns(269.6), 3)
        XCTAssertEqual(VideoReader.quarterTurns(.nan), 0)
    }

    /// Every container the writer offers (and the reader is asked to read: MOV, MKV, AVI, WebM)
    /// round-trips: frame count, timestamps, size and the pixels within lossy-coding error.
    func testOtherContainersReadBack() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mediaio-containers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let base = TestImages.pattern(width: 64, height: 48)
        for container in ["mov", "mkv", "avi", "webm"] {
            let path = dir.appendingPathComponent("out.\(container)").path
            let writer = try VideoWriter(path: path, width: 64, height: 48, framesPerSecond: 25)
            for i in 0..<10 { try writer.append(base, timestampInMilliseconds: i * 40) }
            try writer.finish()
            let reader = try VideoReader(path: path)
            let frames = Array(reader)
            XCTAssertNil(reader.failure, "\(container) (\(writer.codecName))")
            XCTAssertEqual(frames.count, 10, container)
            XCTAssertEqual(frames.map(\.timestampInMilliseconds), (0..<10).map { $0 * 40 }, container)
            guard let last = frames.last else { continue }
            XCTAssertEqual(last.image.width, 64, container)
            XCTAssertEqual(last.image.height, 48, container)
            var total = 0.0
            for y in 0..<48 {
                for x in 0..<(64 * 3) {
                    total += abs(Double(base.bytes[y * base.bytesPerRow + x]) - Double(last.image.bytes[y * last.image.bytesPerRow + x]))
                }
            }
            let meanError = total / Double(64 * 48 * 3)
            XCTAssertLessThan(meanError, 12, "\(container) (\(writer.codecName)): mean absolute error \(meanError) levels")
        }
    }
}
