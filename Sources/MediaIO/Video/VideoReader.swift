import CFFmpeg
import Foundation
import VisionTasks

/// Decodes a video file frame by frame with FFmpeg (libavformat, libavcodec, libswscale):
/// MP4/MOV (H.264, HEVC...), WebM/MKV (VP8, VP9, AV1), AVI (MJPEG...), animated GIF, and
/// whatever else the system's FFmpeg reads.
///
/// Frames are converted to RGB8 by swscale exactly as OpenCV's FFmpeg backend does
/// (`SWS_BICUBIC`, swscale's default colour matrix for the stream), so they equal the frames
/// MediaPipe's Python examples see through `cv2.VideoCapture`. Decoding is streaming: one
/// frame is held at a time.
///
/// Timestamps are the frames' presentation times (`best_effort_timestamp` minus the stream's
/// start, rounded to milliseconds); a frame without one, or whose time does not increase, gets
/// the previous timestamp + 1 ms, so timestamps always strictly increase (as video-mode tasks
/// require). For constant-frame-rate files they equal `round(index * 1000 / fps)`.
///
/// Damaged files: frames that decode are delivered; when the stream ends, an error says what
/// was wrong (packets that failed to decode, or fewer frames than the container declares).
///
/// Use it as a `Sequence` (iteration stops at the first error, then left in `failure`), as an
/// `AsyncSequence` (errors are thrown), or call `nextFrame()` yourself.
public final class VideoReader: Sequence, AsyncSequence {
    public typealias Element = VideoFrame

    /// The file being read.
    public let path: String
    /// What the file declares.
    public let info: VideoInfo
    /// The error that ended a `Sequence` iteration, if any.
    public private(set) var failure: MediaError?

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var scaler: OpaquePointer?
    private let streamIndex: Int32
    private let timeBase: AVRational
    private let startTime: Int64
    private var nextIndex = 0
    private var lastTimestamp = -1
    private var draining = false
    private var finished = false
    /// Packets of the video stream demuxed so far (discarded ones included).
    private var packetCount = 0
    private var decodeErrors = 0
    private var lastDecodeError = ""
    private var readError: String?

    private static let endOfFile: Int32 = -0x2046_4F45 // AVERROR_EOF, FFERRTAG('E','O','F',' ')
    private static let tryAgain: Int32 = -EAGAIN

    /// Whether frames are turned upright by `info.displayRotation` (as OpenCV's FFmpeg reader,
    /// and so MediaPipe's Python users, do).
    public let appliesDisplayRotation: Bool

    /// Opens `path` and its best video stream. Throws `MediaError` when the file is missing,
    /// not a video, or has no decodable video stream. Frames come upright by the container's
    /// display rotation (a phone video tagged "rotate 90") unless `appliesDisplayRotation` is
    /// false, which gives the stored frames.
    public init(path: String, appliesDisplayRotation: Bool = true) throws {
        self.path = path
        self.appliesDisplayRotation = appliesDisplayRotation
        Self.quietFFmpegLogs()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MediaError(source: path, reason: .fileNotFound)
        }
        if isDirectory.boolValue { throw MediaError(source: path, reason: .unreadable("it is a directory")) }
        if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size == 0 {
            throw MediaError(source: path, reason: .empty)
        }

        var context: UnsafeMutablePointer<AVFormatContext>?
        var status = avformat_open_input(&context, path, nil, nil)
        guard status >= 0, let ctx = context else {
            throw MediaError(source: path, reason: .unsupportedFormat(Self.message(status)))
        }
        var openedCodec: UnsafeMutablePointer<AVCodecContext>?
        var openedFrame: UnsafeMutablePointer<AVFrame>?
        var openedPacket: UnsafeMutablePointer<AVPacket>?
        do {
            status = avformat_find_stream_info(ctx, nil)
            guard status >= 0 else { throw MediaError(source: path, reason: .videoDecoding(Self.message(status))) }
            var decoder: UnsafePointer<AVCodec>?
            let index = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0)
            guard index >= 0, let decoder, let stream = ctx.pointee.streams[Int(index)] else {
                throw MediaError(source: path, reason: .unsupportedFormat("no decodable video stream (\(Self.message(index)))"))
            }
            streamIndex = index
            guard let codecContext = avcodec_alloc_context3(decoder) else {
                throw MediaError(source: path, reason: .videoDecoding("cannot allocate a decoder"))
            }
            openedCodec = codecContext
            status = avcodec_parameters_to_context(codecContext, stream.pointee.codecpar)
            guard status >= 0 else { throw MediaError(source: path, reason: .videoDecoding(Self.message(status))) }
            status = avcodec_open2(codecContext, decoder, nil)
            guard status >= 0 else { throw MediaError(source: path, reason: .videoDecoding(Self.message(status))) }
            let width = Int(codecContext.pointee.width), height = Int(codecContext.pointee.height)
            try ImageLimits.validate(width: width, height: height, source: path)
            openedFrame = av_frame_alloc()
            openedPacket = av_packet_alloc()
            guard openedFrame != nil, openedPacket != nil else {
                throw MediaError(source: path, reason: .videoDecoding("out of memory"))
            }
            timeBase = stream.pointee.time_base
            startTime = stream.pointee.start_time == Int64(bitPattern: 0x8000_0000_0000_0000) ? 0 : stream.pointee.start_time

            let rate = av_guess_frame_rate(ctx, stream, nil)
            let fps = rate.den > 0 && rate.num > 0 ? Double(rate.num) / Double(rate.den) : 0
            var duration: Double?
            if ctx.pointee.duration > 0 {
                duration = Double(ctx.pointee.duration) / Double(AV_TIME_BASE)
            } else if stream.pointee.duration > 0, timeBase.den > 0 {
                duration = Double(stream.pointee.duration) * Double(timeBase.num) / Double(timeBase.den)
            }
            var declared: Int?
            if stream.pointee.nb_frames > 0 {
                declared = Int(stream.pointee.nb_frames)
            } else if let duration, fps > 0, (duration * fps).rounded() < Self.largestMilliseconds {
                // (The container's numbers: a huge duration times a huge rate trapped converting.)
                declared = Int((duration * fps).rounded())
            }
            info = VideoInfo(
                width: width, height: height, framesPerSecond: fps, declaredFrameCount: declared,
                durationSeconds: duration, codecName: String(cString: decoder.pointee.name),
                containerName: String(cString: ctx.pointee.iformat.pointee.name),
                displayRotation: Self.quarterTurns(vt_stream_display_rotation(stream)) * 90)
        } catch {
            if openedFrame != nil { av_frame_free(&openedFrame) }
            if openedPacket != nil { av_packet_free(&openedPacket) }
            if openedCodec != nil { avcodec_free_context(&openedCodec) }
            var failed: UnsafeMutablePointer<AVFormatContext>? = ctx
            avformat_close_input(&failed)
            throw error
        }
        format = ctx
        codec = openedCodec
        frame = openedFrame
        packet = openedPacket
    }

    deinit { release() }

    private func release() {
        if scaler != nil { sws_freeContext(scaler); scaler = nil }
        if frame != nil { av_frame_free(&frame) }
        if packet != nil { av_packet_free(&packet) }
        if codec != nil { avcodec_free_context(&codec) }
        if format != nil { avformat_close_input(&format) }
    }

    /// The next frame, or nil at the end of the stream. Throws once, at the end, if the stream
    /// was damaged (see the type's description); later calls return nil.
    public func nextFrame() throws -> VideoFrame? {
        guard !finished, let codec, let frame, let packet, let format else { return nil }
        while true {
            let received = avcodec_receive_frame(codec, frame)
            if received == 0 {
                defer { av_frame_unref(frame) }
                return try convert(frame)
            }
            if received == Self.endOfFile {
                finished = true
                try reportDamage()
                return nil
            }
            if received != Self.tryAgain {
                decodeErrors += 1
                lastDecodeError = Self.message(received)
                if draining { finished = true; try reportDamage(); return nil }
            }
            if draining {
                // The decoder wants input while draining: nothing more will come.
                finished = true
                try reportDamage()
                return nil
            }
            let read = av_read_frame(format, packet)
            if read < 0 {
                if read != Self.endOfFile { readError = Self.message(read) }
                draining = true
                _ = avcodec_send_packet(codec, nil)
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            packetCount += 1
            let sent = avcodec_send_packet(codec, packet)
            if sent < 0, sent != Self.tryAgain {
                decodeErrors += 1
                lastDecodeError = Self.message(sent)
            }
        }
    }

    private func reportDamage() throws {
        let undecoded = decodeErrors > 0 ? "; \(decodeErrors) packet(s) could not be decoded (\(lastDecodeError))" : ""
        if let readError {
            throw MediaError(source: path, reason: .truncated("reading stopped after \(nextIndex) frame(s): \(readError)\(undecoded)"))
        }
        // MP4/MOV index every sample up front, so fewer packets than declared means the data
        // was cut. The declared count is a hint about packets, not frames: an edit list (a clip
        // cut with `ffmpeg -ss ... -c copy`) makes FFmpeg demux and discard the samples before
        // its start, so fewer frames than declared is normal.
        if let declared = info.declaredFrameCount, info.containerName.contains("mp4") || info.containerName.contains("mov"),
           packetCount < declared {
            throw MediaError(source: path, reason: .truncated(
                "the file declares \(declared) frames, only \(packetCount) could be read\(undecoded)"))
        }
        if decodeErrors > 0 {
            throw MediaError(source: path, reason: .corrupt(
                "\(decodeErrors) packet(s) could not be decoded (\(lastDecodeError)); \(nextIndex) frame(s) decoded"))
        }
        if nextIndex == 0 {
            throw MediaError(source: path, reason: .videoDecoding("no frame could be decoded"))
        }
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws -> VideoFrame {
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        try ImageLimits.validate(width: width, height: height, source: path)
        let source = AVPixelFormat(rawValue: frame.pointee.format)
        scaler = sws_getCachedContext(
            scaler, Int32(width), Int32(height), source, Int32(width), Int32(height), AV_PIX_FMT_RGB24,
            Int32(SWS_BICUBIC), nil, nil, nil)
        guard let scaler else {
            throw MediaError(source: path, reason: .videoDecoding("swscale cannot convert \(Self.pixelFormatName(source)) to RGB"))
        }
        // 32-byte aligned rows, as OpenCV's frame buffer has, so swscale takes the same paths.
        let stride = (width * 3 + 31) & ~31
        var pixels = [UInt8](repeating: 0, count: stride * height + 32)
        let scaled = pixels.withUnsafeMutableBufferPointer { out -> Int32 in
            var planes: [UnsafeMutablePointer<UInt8>?] = [out.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(stride), 0, 0, 0]
            return withUnsafePointer(to: &frame.pointee.data) { data in
                data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { src in
                    withUnsafePointer(to: &frame.pointee.linesize) { lines in
                        lines.withMemoryRebound(to: Int32.self, capacity: 8) { srcStride in
                            sws_scale(scaler, src, srcStride, 0, Int32(height), &planes, &strides)
                        }
                    }
                }
            }
        }
        guard scaled == Int32(height) else {
            throw MediaError(source: path, reason: .videoDecoding("swscale converted \(scaled) of \(height) rows"))
        }
        let pts = frame.pointee.best_effort_timestamp
        guard
            var timestamp = Self.milliseconds(
                pts: pts == Int64(bitPattern: 0x8000_0000_0000_0000) ? nil : pts, startTime: startTime,
                timeBase: (timeBase.num, timeBase.den), index: nextIndex, framesPerSecond: info.framesPerSecond,
                previous: lastTimestamp)
        else {
            throw MediaError(source: path, reason: .corrupt(
                "frame \(nextIndex)'s time (pts \(pts), time base \(timeBase.num)/\(timeBase.den)) is beyond"
                    + " \(Int(Self.largestMilliseconds)) ms from the start"))
        }
        if timestamp <= lastTimestamp { timestamp = lastTimestamp + 1 }
        lastTimestamp = timestamp
        var image = PixelBuffer(unchecked: width, height: height, format: .rgb8, bytesPerRow: stride, bytes: pixels)
        if appliesDisplayRotation, let orientation = Self.orientation(clockwise: info.displayRotation) {
            image = image.reoriented(orientation)
        }
        defer { nextIndex += 1 }
        return VideoFrame(index: nextIndex, timestampInMilliseconds: timestamp, image: image)
    }

    // MARK: Sequence

    /// Iterates frames; stops at the end or at the first error (then in `failure`).
    public struct Iterator: IteratorProtocol {
        let reader: VideoReader
        public mutating func next() -> VideoFrame? {
            do {
                return try reader.nextFrame()
            } catch let error as MediaError {
                reader.failure = error
                return nil
            } catch {
                reader.failure = MediaError(source: reader.path, reason: .videoDecoding(String(describing: error)))
                return nil
            }
        }
    }

    public func makeIterator() -> Iterator { Iterator(reader: self) }

    // MARK: AsyncSequence

    /// Iterates frames, throwing the error of a damaged stream at its end.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let reader: VideoReader
        public mutating func next() async throws -> VideoFrame? {
            try reader.nextFrame()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: self) }

    // MARK: Helpers

    static func message(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) < 0 { return "FFmpeg error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func pixelFormatName(_ format: AVPixelFormat) -> String {
        guard let name = av_get_pix_fmt_name(format) else { return "pixel format \(format.rawValue)" }
        return String(cString: name)
    }

    /// FFmpeg prints decoder complaints on stderr; MediaIO reports them as errors instead.
    static func quietFFmpegLogs() {
        if av_log_get_level() > AV_LOG_FATAL { av_log_set_level(AV_LOG_FATAL) }
    }
}

extension VideoReader {
    /// A rotation in degrees as quarter turns clockwise, 0...3 (rounded to the nearest).
    static func quarterTurns(_ degrees: Double) -> Int {
        guard degrees.isFinite else { return 0 }
        let turns = Int((degrees / 90).rounded()) % 4
        return turns < 0 ? turns + 4 : turns
    }

    /// The EXIF orientation of stored pixels that a player turns `degrees` clockwise; nil for 0.
    static func orientation(clockwise degrees: Int) -> EXIFOrientation? {
        switch degrees {
        case 90: return .right
        case 180: return .down
        case 270: return .left
        default: return nil
        }
    }
}

extension VideoReader {
    /// The largest frame time, in milliseconds, a reader gives: what a task's timestamp may be
    /// (MediaPipe keeps timestamps in microseconds in an `Int64`).
    static let largestMilliseconds = Double(Int64.max / 1000 - 1)

    /// A frame's time in milliseconds from the stream's start: from its `pts` in the stream's
    /// time base, else from its index and the frame rate, else one after `previous`. Nil when
    /// it is beyond `largestMilliseconds` either way. The numbers come from the file: a crafted
    /// container's `pts - startTime` overflowed `Int64` and a huge time overflowed the
    /// conversion to `Int`, both traps, before this was checked.
    static func milliseconds(
        pts: Int64?, startTime: Int64, timeBase: (num: Int32, den: Int32), index: Int, framesPerSecond: Double,
        previous: Int
    ) -> Int? {
        let time: Double
        if let pts, timeBase.den > 0 {
            let (ticks, overflow) = pts.subtractingReportingOverflow(startTime)
            guard !overflow else { return nil }
            time = (Double(ticks) * Double(timeBase.num) * 1000 / Double(timeBase.den)).rounded()
        } else if framesPerSecond > 0 {
            time = (Double(index) * 1000 / framesPerSecond).rounded()
        } else {
            time = Double(previous) + 1
        }
        guard time.isFinite, abs(time) <= largestMilliseconds else { return nil }
        return Int(time)
    }
}
