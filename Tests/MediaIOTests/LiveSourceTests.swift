import Foundation
@testable import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// `VideoReader(source:options:)` on live sources that `ffmpeg` serves on 127.0.0.1, and on
/// sources that fail: a refused connection, silence, a missing camera, an interrupt.
final class LiveSourceTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// A 320x240 clip, 30 fps, `frames` frames: a white bar moving right over grey.
    private func clip(frames: Int) throws -> String {
        let path = dir.appendingPathComponent("bar.mp4").path
        let writer = try VideoWriter(path: path, width: 320, height: 240, framesPerSecond: 30)
        for index in 0..<frames {
            var bytes = [UInt8](repeating: 90, count: 320 * 240 * 3)
            let x0 = (index * 8) % 300
            for y in 60..<180 { for x in x0..<(x0 + 20) { for c in 0..<3 { bytes[(y * 320 + x) * 3 + c] = 250 } } }
            try writer.append(try PixelBuffer(width: 320, height: 240, format: .rgb8, bytes: bytes), timestampInMilliseconds: index * 1000 / 30)
        }
        try writer.finish()
        return path
    }

    /// MJPEG over HTTP carries no timestamps: frames get their arrival times, the stream ends
    /// when the server closes it, and every frame arrives (the reader is never the bottleneck).
    func testHTTPMJPEGStreamReadsEveryFrameWithArrivalTimesUntilTheServerCloses() throws {
        let port = LiveStreamServer.freePort()
        let server = try LiveStreamServer.startHTTPMJPEG(
            clip: try clip(frames: 45), port: port, logTo: dir.appendingPathComponent("ffmpeg.log").path)
        defer { server.kill() }
        let reader = try VideoReader(source: "http://127.0.0.1:\(port)/", options: VideoSourceOptions(timeoutSeconds: 20))
        XCTAssertTrue(reader.isLive)
        XCTAssertEqual(reader.info.codecName, "mjpeg")
        var timestamps: [Int] = []
        var brightColumns: [Int] = []
        while let frame = try reader.nextFrame(), timestamps.count < 1000 {
            XCTAssertEqual(frame.image.width, 320)
            XCTAssertEqual(frame.image.height, 240)
            timestamps.append(frame.timestampInMilliseconds)
            // Where the bar is: its left edge on row 120.
            let row = frame.image.bytes[(120 * frame.image.bytesPerRow)...]
            brightColumns.append((0..<320).first { row[row.startIndex + $0 * 3] > 200 } ?? -1)
        }
        XCTAssertEqual(reader.timestampSource, .arrival)
        // Probing may take the first frame or two (no buffering for live sources).
        XCTAssert((40...45).contains(timestamps.count), "\(timestamps.count) frames")
        XCTAssertEqual(timestamps, timestamps.sorted())
        XCTAssertEqual(Set(timestamps).count, timestamps.count)
        // Real time: 45 frames at 30 fps span well over a second of arrival times.
        XCTAssertGreaterThan((timestamps.last ?? 0) - (timestamps.first ?? 0), 700)
        // The bar moves right frame by frame: the frames are the clip's, in order.
        let moves = zip(brightColumns, brightColumns.dropFirst()).filter { $1 > $0 }.count
        XCTAssertGreaterThan(moves, timestamps.count / 2, "\(brightColumns)")
        XCTAssertEqual(server.wait(seconds: 20), 0, server.errorText())
    }

    /// MPEG-TS over UDP carries presentation times: they are used (33 ms apart at 30 fps), and
    /// the interrupt token ends reading at once (UDP never ends by itself).
    func testUDPMPEGTSUsesPresentationTimesAndStopsOnInterrupt() throws {
        let port = LiveStreamServer.freePort(udp: true)
        let sender = try LiveStreamServer.startUDPMPEGTS(
            clip: try clip(frames: 60), port: port, logTo: dir.appendingPathComponent("ffmpeg.log").path)
        defer { sender.kill() }
        let token = InterruptToken()
        let reader = try VideoReader(
            source: "udp://127.0.0.1:\(port)", options: VideoSourceOptions(timeoutSeconds: 20, interruptToken: token))
        var timestamps: [Int] = []
        while timestamps.count < 20, let frame = try reader.nextFrame() { timestamps.append(frame.timestampInMilliseconds) }
        XCTAssertEqual(timestamps.count, 20)
        XCTAssertEqual(reader.timestampSource, .presentation)
        let steps = zip(timestamps, timestamps.dropFirst()).map { $1 - $0 }
        XCTAssertTrue(steps.allSatisfy { (33...34).contains($0) }, "\(steps)")
        token.interrupt()
        XCTAssertNil(try reader.nextFrame())
        XCTAssertTrue(reader.wasInterrupted)
    }

    /// A UDP stream that stops sending: the read fails as timed out (after every frame sent
    /// was delivered), which the commands take as the end of a UDP stream.
    func testUDPStreamThatFallsSilentTimesOutAfterItsFrames() throws {
        let port = LiveStreamServer.freePort(udp: true)
        let sender = try LiveStreamServer.startUDPMPEGTS(
            clip: try clip(frames: 30), port: port, loops: 0, logTo: dir.appendingPathComponent("ffmpeg.log").path)
        defer { sender.kill() }
        let reader = try VideoReader(source: "udp://127.0.0.1:\(port)", options: VideoSourceOptions(timeoutSeconds: 1))
        var count = 0
        XCTAssertThrowsError(try { while try reader.nextFrame() != nil, count < 1000 { count += 1 } }()) { error in
            XCTAssertTrue("\(error)".contains("no data for 1 s (timed out)"), "\(error)")
        }
        XCTAssertTrue(reader.timedOut)
        XCTAssertGreaterThan(count, 0)
    }

    func testRefusedConnectionIsAClearError() throws {
        let port = LiveStreamServer.freePort()
        XCTAssertThrowsError(try VideoReader(source: "http://127.0.0.1:\(port)/", options: VideoSourceOptions())) { error in
            let error = error as? MediaIOError
            XCTAssertEqual(error?.reason, .unreadable("connection refused (nothing listens there)"), "\(String(describing: error))")
        }
    }

    /// Nothing arrives on a UDP port: the open gives up after the timeout instead of hanging.
    func testSilentSourceTimesOut() throws {
        let port = LiveStreamServer.freePort(udp: true)
        XCTAssertThrowsError(
            try VideoReader(source: "udp://127.0.0.1:\(port)", options: VideoSourceOptions(timeoutSeconds: 0.5))
        ) { error in
            XCTAssertTrue("\(error)".contains("timed out"), "\(error)")
        }
    }

    /// Without a timeout, the token ends a blocked open from another thread.
    func testInterruptTokenEndsABlockedOpen() throws {
        let port = LiveStreamServer.freePort(udp: true)
        let token = InterruptToken()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { token.interrupt() }
        XCTAssertThrowsError(
            try VideoReader(source: "udp://127.0.0.1:\(port)", options: VideoSourceOptions(timeoutSeconds: 0, interruptToken: token))
        ) { error in
            XCTAssertEqual((error as? MediaIOError)?.reason, .unreadable("interrupted while opening"), "\(error)")
        }
    }

    func testMissingCameraAndUnknownFormatAreClearErrors() throws {
        XCTAssertTrue(VideoReader.isCaptureDevice(formatName: "v4l2") || VideoReader.isCaptureDevice(formatName: "video4linux2"),
                      "\(VideoReader.captureDeviceNames())")
        XCTAssertThrowsError(
            try VideoReader(source: "/dev/video-does-not-exist", options: VideoSourceOptions(formatName: "v4l2"))
        ) { error in
            XCTAssertEqual((error as? MediaIOError)?.reason, .fileNotFound, "\(error)")
        }
        XCTAssertThrowsError(
            try VideoReader(source: "/dev/video0", options: VideoSourceOptions(formatName: "no-such-format"))
        ) { error in
            XCTAssertTrue("\(error)".contains("no input format or device named no-such-format"), "\(error)")
        }
    }
}
