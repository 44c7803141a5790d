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

    /// Ten 64x48 JPEG frames, grey levels 20, 40, ... (to tell them apart).
    private func jpegFrames() throws -> [[UInt8]] {
        try (1...10).map { level in
            try ImageEncoder.jpeg(try PixelBuffer(width: 64, height: 48, format: .gray8, bytes: [UInt8](repeating: UInt8(level * 20), count: 64 * 48)))
        }
    }

    /// An MJPEG stream as mjpg-streamer and many cameras serve it (HTTP/1.0, no length, no
    /// chunks) that ends by closing the connection: every frame, then the normal end. Before,
    /// the last read failed with "Input/output error" (FFmpeg's HTTP calls such an end premature)
    /// and the commands exited 1.
    func testAnMJPEGStreamThatEndsByClosingTheConnectionEndsNormally() throws {
        let frames = try jpegFrames()
        let server = try ScriptedHTTPServer { send in
            guard send(ScriptedHTTPServer.mjpegHead()) else { return }
            for frame in frames {
                guard send(ScriptedHTTPServer.mjpegPart(frame, headers: ["Content-Length: \(frame.count)"])) else { return }
                usleep(20_000)
            }
        }
        defer { server.stop() }
        let reader = try VideoReader(source: "http://127.0.0.1:\(server.port)/", options: VideoSourceOptions(timeoutSeconds: 20))
        var levels: [UInt8] = []
        while let frame = try reader.nextFrame(), levels.count < 100 { levels.append(frame.image.bytes[0]) }
        // Probing may take the first frame (no buffering for live sources).
        XCTAssert((9...10).contains(levels.count), "\(levels)")
        XCTAssertEqual(levels, levels.sorted())
    }

    /// An MJPEG part whose `Content-Length` is 4 000 000 000, or that has none and never ends:
    /// the read fails once it has taken `maxPacketBytes` (1 MiB here), with a message that says
    /// so, and the connection is dropped. Before, the part was read whole (2.2 GB) and then
    /// failed with "dimensions 0x0".
    func testAnMJPEGPartWithAHugeOrNoLengthFailsEarly() throws {
        let frame = try jpegFrames()[0]
        for headers in [["Content-Length: 4000000000"], []] {
            let sent = ByteCounter()
            let server = try ScriptedHTTPServer { send in
                guard send(ScriptedHTTPServer.mjpegHead()),
                      send(ScriptedHTTPServer.mjpegPart(frame, headers: ["Content-Length: \(frame.count)"])),
                      send(Array("Content-Type: image/jpeg\r\n\(headers.map { $0 + "\r\n" }.joined())\r\n".utf8) + frame)
                else { return }
                let chunk = [UInt8](repeating: 0x55, count: 1 << 16)
                while sent.total < 256 << 20, send(chunk) { sent.add(chunk.count) }
            }
            defer { server.stop() }
            var options = VideoSourceOptions(timeoutSeconds: 20)
            options.maxPacketBytes = 1 << 20
            XCTAssertThrowsError(try {
                let reader = try VideoReader(source: "http://127.0.0.1:\(server.port)/", options: options)
                while try reader.nextFrame() != nil {}
            }()) { error in
                XCTAssertTrue("\(error)".contains("larger than 1048576 bytes"), "\(headers): \(error)")
            }
            for _ in 0..<200 where server.connectionsServed == 0 { usleep(50_000) }
            XCTAssertLessThan(sent.total, 64 << 20, "\(headers): the part was read on after the limit")
        }
    }

    /// A Motion JPEG frame of 10 000 scans (a progressive JPEG bomb, 108 kB here) in a stream is
    /// not decoded: counted as a frame that failed to decode, the stream goes on. FFmpeg's JPEG
    /// decoder would read every scan (8 s of a core for a 4096 x 4096 one).
    func testAnMJPEGFrameOfThousandsOfScansIsNotDecoded() throws {
        let frames = try jpegFrames()
        let bomb = ProgressiveJPEG(width: 1024, height: 1024).repeatedScanBomb(repeats: 10_000, low: 0)
        let parts = Array(frames[0..<4]) + [bomb] + Array(frames[4..<8])
        let server = try ScriptedHTTPServer { send in
            guard send(ScriptedHTTPServer.mjpegHead()) else { return }
            for part in parts {
                guard send(ScriptedHTTPServer.mjpegPart(part, headers: ["Content-Length: \(part.count)"])) else { return }
                usleep(20_000)
            }
        }
        defer { server.stop() }
        let reader = try VideoReader(source: "http://127.0.0.1:\(server.port)/", options: VideoSourceOptions(timeoutSeconds: 20))
        var count = 0
        while try reader.nextFrame() != nil, count < 100 { count += 1 }
        XCTAssertEqual(reader.decodeErrorCount, 1)
        XCTAssert((7...8).contains(count), "\(count) frames")
    }

    /// A source that answers a little garbage and then waits: refused at once as not a video
    /// stream, not after the 20 s timeout (before: after the timeout, as "timed out").
    func testGarbageFromTheFirstByteIsRefusedAtOnce() throws {
        let server = try ScriptedHTTPServer { send in
            guard send(Array("HTTP/1.0 200 OK\r\n\r\n".utf8) + (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }) else { return }
            for _ in 0..<300 where send([]) { usleep(100_000) }  // holds the connection for at most 30 s
        }
        defer { server.stop() }
        XCTAssertThrowsError(try VideoReader(source: "http://127.0.0.1:\(server.port)/", options: VideoSourceOptions(timeoutSeconds: 20))) { error in
            XCTAssertFalse("\(error)".contains("timed out"), "\(error)")
            XCTAssertTrue("\(error)".contains("Invalid data"), "\(error)")
        }
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

/// Bytes a test server has sent, counted across threads.
final class ByteCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ n: Int) { lock.withLock { count += n } }
    var total: Int { lock.withLock { count } }
}
