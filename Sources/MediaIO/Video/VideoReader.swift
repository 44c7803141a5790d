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
/// Call `nextFrame()`, which throws, until it returns nil:
///
/// ```swift
/// let reader = try VideoReader(path: "clip.mp4")
/// while let frame = try reader.nextFrame() {
///     print(frame.timestampInMilliseconds, frame.image.width, frame.image.height)
/// }
/// ```
///
/// It is also an `AsyncSequence` (`for try await frame in reader`, errors are thrown) and a
/// `Sequence`; a `for frame in reader` loop cannot throw, so it stops quietly at the first error
/// and leaves it in `failure`: check that after the loop, or a damaged file reads as a short one.
///
/// Live sources (a V4L2 camera, RTSP, HTTP MJPEG, UDP MPEG-TS...) open with
/// `init(source:options:)`: reads are bounded by a timeout and can be ended from another
/// thread (`InterruptToken`), and timestamps follow the stream's presentation times while
/// they increase, else the arrival times (`timestampSource`). Reading a live source is
/// real time: `nextFrame()` returns each frame as it arrives, so a caller that hands frames
/// to a live-stream task (which drops frames while busy) never queues them.
public final class VideoReader: Sequence, AsyncSequence {
    public typealias Element = VideoFrame

    /// The file being read.
    public let path: String
    /// What the file declares.
    public let info: VideoInfo
    /// The error that ended a `Sequence` iteration, if any. A `for frame in reader` loop ends
    /// the same way at the end of the file and at a decode error: check this after it.
    public private(set) var failure: MediaIOError?

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var scaler: OpaquePointer?
    private let streamIndex: Int32
    /// Whether the stream is Motion JPEG (its packets are checked by `jpegScanCount`).
    private let isMotionJPEG: Bool
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
    private var lastArrival: UInt64?

    private static let endOfFile: Int32 = -0x2046_4F45 // AVERROR_EOF, FFERRTAG('E','O','F',' ')
    private static let exitRequested: Int32 = -0x5449_5845 // AVERROR_EXIT, FFERRTAG('E','X','I','T')
    private static let tryAgain: Int32 = -EAGAIN
    private static let inputOutputError: Int32 = -EIO

    /// Whether frames are turned upright by `info.displayRotation` (as OpenCV's FFmpeg reader,
    /// and so MediaPipe's Python users, do).
    public let appliesDisplayRotation: Bool

    /// Whether the source was opened with live semantics (`VideoSourceOptions.isLive`).
    public let isLive: Bool
    /// Where the timestamps of the frames delivered so far came from: `.presentation` for
    /// files and for live streams whose timestamps increase, `.arrival` once a live stream
    /// had a frame without one or with one not after the previous frame's.
    public private(set) var timestampSource = VideoTimestampSource.presentation
    /// Packets that failed to decode so far (a live source goes on after them).
    public var decodeErrorCount: Int { decodeErrors }
    /// Whether the last read of a live source failed because nothing arrived within the
    /// timeout.
    public private(set) var timedOut = false
    /// Whether reading stopped because the `InterruptToken` asked it to.
    public var wasInterrupted: Bool { interruption?.token?.isInterrupted ?? false }

    /// Live sources: the token and the deadline FFmpeg's interrupt callback checks.
    private let interruption: Interruption?
    private let timeoutSeconds: Double
    /// Live timestamps: the first frame's presentation time, and the arrival clock's origin.
    private var firstPresentation: Int64?
    private var arrivalOrigin: UInt64?

    /// Opens `path` and its best video stream. Throws `MediaIOError` when the file is missing,
    /// not a video, or has no decodable video stream. Frames come upright by the container's
    /// display rotation (a phone video tagged "rotate 90") unless `appliesDisplayRotation` is
    /// false, which gives the stored frames.
    public convenience init(path: String, appliesDisplayRotation: Bool = true) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MediaIOError(source: path, reason: .fileNotFound)
        }
        if isDirectory.boolValue { throw MediaIOError(source: path, reason: .unreadable("it is a directory")) }
        if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size == 0 {
            throw MediaIOError(source: path, reason: .empty)
        }
        try self.init(opening: path, options: nil, appliesDisplayRotation: appliesDisplayRotation)
    }

    /// Opens a live source: a URL (`rtsp://`, `http://host/stream.mjpg`, `udp://127.0.0.1:5000`,
    /// `tcp://`, `rtp://`, `srt://`...), a capture device with its format
    /// (`/dev/video0` with `formatName: "v4l2"`), or a file or pipe read as it grows.
    ///
    /// Opening (connecting, probing the stream until its first picture) and every later read
    /// are bounded by `options.timeoutSeconds`; `options.interruptToken` ends them at once
    /// from another thread. Throws `MediaIOError`: `.fileNotFound` for a missing device or file,
    /// `.unreadable` for a refused connection, a timeout or a network error (with FFmpeg's
    /// message), `.unsupportedFormat` for an unknown format name or a source without video.
    public convenience init(source: String, options: VideoSourceOptions) throws {
        try self.init(opening: source, options: options, appliesDisplayRotation: options.appliesDisplayRotation)
    }

    private init(opening path: String, options: VideoSourceOptions?, appliesDisplayRotation: Bool) throws {
        self.path = path
        self.appliesDisplayRotation = appliesDisplayRotation
        isLive = options?.isLive ?? false
        timeoutSeconds = Swift.max(0, options?.timeoutSeconds ?? 0)
        Self.quietFFmpegLogs()

        var context: UnsafeMutablePointer<AVFormatContext>?
        var status: Int32
        var interruption: Interruption?
        if let options {
            Self.registerDevices()
            var inputFormat: UnsafePointer<AVInputFormat>?
            if let name = options.formatName {
                guard let found = av_find_input_format(name) else {
                    throw MediaIOError(source: path, reason: .unsupportedFormat(
                        "this FFmpeg has no input format or device named \(name) (devices: \(Self.captureDeviceNames().joined(separator: ", ")))"))
                }
                inputFormat = found
            }
            guard let ctx = avformat_alloc_context() else {
                throw MediaIOError(source: path, reason: .videoDecoding("out of memory"))
            }
            let guardian = Interruption(token: options.interruptToken, maxPacketBytes: options.maxPacketBytes)
            interruption = guardian
            ctx.pointee.interrupt_callback = AVIOInterruptCB(
                callback: videoReaderInterruptCallback, opaque: Unmanaged.passUnretained(guardian).toOpaque())
            if options.isLive {
                // Stored timestamps only: MJPEG over HTTP has none, and libavformat would invent
                // 25 fps ones. (The packets read while probing the stream are kept, and come
                // first: dropping them, as `-fflags nobuffer` does, loses all of a stream
                // shorter than the probe, which for MPEG-TS lasts about 20 frames.)
                ctx.pointee.flags |= Int32(AVFMT_FLAG_NOFILLIN)
            }
            var dictionary: OpaquePointer?
            for (key, value) in options.formatOptions.sorted(by: { $0.key < $1.key }) {
                av_dict_set(&dictionary, key, value, 0)
            }
            if options.isLive, options.formatName == nil, options.formatOptions["formatprobesize"] == nil {
                // The format is guessed from the first 2 kB (FFmpeg's first probing step), not
                // from up to 5 MB: a source that sends a little garbage and then waits (a
                // banner, an error page kept open) is refused at once instead of at the timeout.
                // Streams are recognised from their first bytes (MJPEG's boundary, MPEG-TS sync
                // bytes, HTTP's content type).
                av_dict_set(&dictionary, "formatprobesize", "2048", 0)
            }
            guardian.arm(seconds: timeoutSeconds)
            context = ctx
            // Until the context exists, the callback counts nothing; `watch` below counts the
            // bytes of probing and of each packet read.
            status = avformat_open_input(&context, path, inputFormat, &dictionary)
            if let opened = context { guardian.watch(opened) }
            let unused = Self.dictionaryKeys(dictionary)
            av_dict_free(&dictionary)
            guard status >= 0, let opened = context else {
                throw Self.openError(path, status: status, interruption: guardian, timeout: timeoutSeconds)
            }
            if !unused.isEmpty {
                var failed: UnsafeMutablePointer<AVFormatContext>? = opened
                avformat_close_input(&failed)
                throw MediaIOError(source: path, reason: .unreadable(
                    "no option named \(unused.joined(separator: ", ")) for this source's format, device or protocol"))
            }
        } else {
            status = avformat_open_input(&context, path, nil, nil)
            guard status >= 0, context != nil else {
                throw MediaIOError(source: path, reason: .unsupportedFormat(Self.message(status)))
            }
        }
        self.interruption = interruption
        guard let ctx = context else { throw MediaIOError(source: path, reason: .videoDecoding("cannot open")) }
        var openedCodec: UnsafeMutablePointer<AVCodecContext>?
        var openedFrame: UnsafeMutablePointer<AVFrame>?
        var openedPacket: UnsafeMutablePointer<AVPacket>?
        do {
            interruption?.arm(seconds: timeoutSeconds)
            status = avformat_find_stream_info(ctx, nil)
            guard status >= 0 else {
                if let interruption, status == Self.exitRequested {
                    throw Self.openError(path, status: status, interruption: interruption, timeout: timeoutSeconds)
                }
                throw MediaIOError(source: path, reason: .videoDecoding(Self.message(status)))
            }
            var decoder: UnsafePointer<AVCodec>?
            let index = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0)
            guard index >= 0, let decoder, let stream = ctx.pointee.streams[Int(index)] else {
                throw MediaIOError(source: path, reason: .unsupportedFormat("no decodable video stream (\(Self.message(index)))"))
            }
            streamIndex = index
            isMotionJPEG = stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_MJPEG
            guard let codecContext = avcodec_alloc_context3(decoder) else {
                throw MediaIOError(source: path, reason: .videoDecoding("cannot allocate a decoder"))
            }
            openedCodec = codecContext
            status = avcodec_parameters_to_context(codecContext, stream.pointee.codecpar)
            guard status >= 0 else { throw MediaIOError(source: path, reason: .videoDecoding(Self.message(status))) }
            status = avcodec_open2(codecContext, decoder, nil)
            guard status >= 0 else { throw MediaIOError(source: path, reason: .videoDecoding(Self.message(status))) }
            let width = Int(codecContext.pointee.width), height = Int(codecContext.pointee.height)
            try ImageLimits.check(width: width, height: height, source: path)
            openedFrame = av_frame_alloc()
            openedPacket = av_packet_alloc()
            guard openedFrame != nil, openedPacket != nil else {
                throw MediaIOError(source: path, reason: .videoDecoding("out of memory"))
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
            if isLive {
                duration = nil
            } else if stream.pointee.nb_frames > 0 {
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
            if let interruption {
                // A stream that never blocks would never ask the interrupt callback.
                if interruption.token?.isInterrupted == true {
                    finished = true
                    return nil
                }
                interruption.arm(seconds: timeoutSeconds)
                interruption.beginPacket()
            }
            let read = av_read_frame(format, packet)
            if read < 0 {
                if read == Self.exitRequested, let interruption, interruption.packetWasTooLarge {
                    readError = Self.packetTooLargeMessage(interruption.packetLimit)
                } else if read == Self.exitRequested, let interruption {
                    if interruption.token?.isInterrupted == true {
                        // Stopped on request: the frames decoded so far were all delivered.
                        finished = true
                        return nil
                    }
                    // Only the interrupt callback makes FFmpeg exit, and not on request: the
                    // deadline passed (now or on the read before, whose error the I/O kept
                    // while the demuxer still returned the packet it held).
                    timedOut = true
                    readError = "no data for \(Self.seconds(timeoutSeconds)) (timed out)"
                } else if read != Self.endOfFile, !(isLive && Self.connectionEnded(format)) {
                    // A live stream whose server closed the connection ends there, whatever the
                    // demuxer says of its last, cut part (mpjpeg: invalid data).
                    readError = Self.message(read)
                }
                draining = true
                _ = avcodec_send_packet(codec, nil)
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            packetCount += 1
            if isMotionJPEG, Self.jpegScanCount(packet) > Self.maxScansPerJPEG {
                // FFmpeg's JPEG decoder reads every scan, each a pass over the image: a frame
                // of 10 000 tiny scans (433 kB) took it 8 s of a core.
                decodeErrors += 1
                lastDecodeError = "a frame of more than \(Self.maxScansPerJPEG) scans, not decoded"
                continue
            }
            let sent = avcodec_send_packet(codec, packet)
            if sent < 0, sent != Self.tryAgain {
                decodeErrors += 1
                lastDecodeError = Self.message(sent)
            }
        }
    }

    private func reportDamage() throws {
        if isLive {
            // A live stream ends when its server closes it; lost packets are not fatal.
            if let readError {
                throw MediaIOError(source: path, reason: .unreadable(
                    nextIndex == 0 ? readError : "the stream failed after \(nextIndex) frame(s): \(readError)"))
            }
            if nextIndex == 0 {
                throw MediaIOError(source: path, reason: .videoDecoding(
                    decodeErrors > 0 ? "no frame could be decoded (\(lastDecodeError))" : "the stream ended before its first frame"))
            }
            return
        }
        let undecoded = decodeErrors > 0 ? "; \(decodeErrors) packet(s) could not be decoded (\(lastDecodeError))" : ""
        if let readError {
            throw MediaIOError(source: path, reason: .truncated("reading stopped after \(nextIndex) frame(s): \(readError)\(undecoded)"))
        }
        // MP4/MOV index every sample up front, so fewer packets than declared means the data
        // was cut. The declared count is a hint about packets, not frames: an edit list (a clip
        // cut with `ffmpeg -ss ... -c copy`) makes FFmpeg demux and discard the samples before
        // its start, so fewer frames than declared is normal.
        if let declared = info.declaredFrameCount, info.containerName.contains("mp4") || info.containerName.contains("mov"),
           packetCount < declared {
            throw MediaIOError(source: path, reason: .truncated(
                "the file declares \(declared) frames, only \(packetCount) could be read\(undecoded)"))
        }
        if decodeErrors > 0 {
            throw MediaIOError(source: path, reason: .corrupt(
                "\(decodeErrors) packet(s) could not be decoded (\(lastDecodeError)); \(nextIndex) frame(s) decoded"))
        }
        if nextIndex == 0 {
            throw MediaIOError(source: path, reason: .videoDecoding("no frame could be decoded"))
        }
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws -> VideoFrame {
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        try ImageLimits.check(width: width, height: height, source: path)
        let source = AVPixelFormat(rawValue: frame.pointee.format)
        scaler = sws_getCachedContext(
            scaler, Int32(width), Int32(height), source, Int32(width), Int32(height), AV_PIX_FMT_RGB24,
            Int32(SWS_BICUBIC), nil, nil, nil)
        guard let scaler else {
            throw MediaIOError(source: path, reason: .videoDecoding("swscale cannot convert \(Self.pixelFormatName(source)) to RGB"))
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
            throw MediaIOError(source: path, reason: .videoDecoding("swscale converted \(scaled) of \(height) rows"))
        }
        let pts = frame.pointee.best_effort_timestamp
        var timestamp: Int
        if isLive {
            timestamp = liveTimestamp(pts)
        } else {
            guard
                let fileTimestamp = Self.milliseconds(
                    pts: pts == Int64(bitPattern: 0x8000_0000_0000_0000) ? nil : pts, startTime: startTime,
                    timeBase: (timeBase.num, timeBase.den), index: nextIndex, framesPerSecond: info.framesPerSecond,
                    previous: lastTimestamp)
            else {
                throw MediaIOError(source: path, reason: .corrupt(
                    "frame \(nextIndex)'s time (pts \(pts), time base \(timeBase.num)/\(timeBase.den)) is beyond"
                        + " \(Int(Self.largestMilliseconds)) ms from the start"))
            }
            timestamp = fileTimestamp
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

    /// A live frame's timestamp: its presentation time from the first frame's while these
    /// increase; from the first frame that has none or goes back, the arrival time for the
    /// rest of the stream, continuing from the last timestamp (never back, never a jump).
    private func liveTimestamp(_ pts: Int64) -> Int {
        let now = DispatchTime.now().uptimeNanoseconds
        defer { lastArrival = now }
        if timestampSource == .presentation, pts != Int64(bitPattern: 0x8000_0000_0000_0000), timeBase.den > 0 {
            let first = firstPresentation ?? pts
            firstPresentation = first
            // The stream's numbers are untrusted: a difference that overflows is no presentation time.
            let (ticks, overflow) = pts.subtractingReportingOverflow(first)
            let ms = (Double(ticks) * Double(timeBase.num) * 1000 / Double(timeBase.den)).rounded()
            if !overflow, ms.isFinite, ms > Double(lastTimestamp), ms < 1e12 { return Int(ms) }
        }
        if arrivalOrigin == nil {
            // From here on, arrival times: the first such frame follows the previous one by the
            // time that passed between them (or starts the stream at 0).
            timestampSource = .arrival
            let elapsed = lastTimestamp < 0 ? 0 : Swift.max(1, (now &- (lastArrival ?? now)) / 1_000_000)
            let start = UInt64(Swift.max(0, lastTimestamp)) + (lastTimestamp < 0 ? 0 : elapsed)
            arrivalOrigin = now &- start * 1_000_000
        }
        let ms = Int((now &- (arrivalOrigin ?? now)) / 1_000_000)
        return Swift.max(ms, lastTimestamp + 1)
    }

    // MARK: Sequence

    /// Iterates frames; stops at the end or at the first error (then in `failure`).
    public struct Iterator: IteratorProtocol {
        let reader: VideoReader
        public mutating func next() -> VideoFrame? {
            do {
                return try reader.nextFrame()
            } catch let error as MediaIOError {
                reader.failure = error
                return nil
            } catch {
                reader.failure = MediaIOError(source: reader.path, reason: .videoDecoding(String(describing: error)))
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

    /// Whether the source's I/O reached its end because the server closed the connection: no
    /// error, or FFmpeg's HTTP "Stream ends prematurely" (an input/output error), which is how
    /// it reports every response without a length or chunks that ends by closing, as
    /// mjpg-streamer's and many cameras' MJPEG streams do (the `ffmpeg` program ends those with
    /// status 0 too).
    private static func connectionEnded(_ format: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        guard let io = format.pointee.pb else { return false }
        return io.pointee.eof_reached != 0 && [0, endOfFile, inputOutputError].contains(io.pointee.error)
    }

    /// Registers libavdevice's capture devices (V4L2...) with libavformat, once.
    static func registerDevices() { _ = devicesRegistered }
    private static let devicesRegistered: Void = { avdevice_register_all() }()

    /// The names of the video capture devices this FFmpeg has (`v4l2`, `x11grab`, `lavfi`...).
    public static func captureDeviceNames() -> [String] {
        registerDevices()
        var names: [String] = []
        var device = av_input_video_device_next(nil)
        while let current = device, names.count < 64 {
            names.append(String(cString: current.pointee.name))
            device = av_input_video_device_next(current)
        }
        return names
    }

    /// Whether `formatName` is one of FFmpeg's capture devices (a source that is live by nature).
    public static func isCaptureDevice(formatName: String) -> Bool {
        captureDeviceNames().contains { $0.split(separator: ",").contains(Substring(formatName)) }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    private static func dictionaryKeys(_ dictionary: OpaquePointer?) -> [String] {
        var keys: [String] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX), keys.count < 64 {
            keys.append(String(cString: next.pointee.key))
            entry = next
        }
        return keys
    }

    /// Why a live source did not open, in words a user can act on.
    private static func openError(_ path: String, status: Int32, interruption: Interruption, timeout: Double) -> MediaIOError {
        if status == exitRequested {
            // Only the interrupt callback makes FFmpeg exit: a stop request, the byte bound, or
            // the deadline.
            if interruption.token?.isInterrupted == true { return MediaIOError(source: path, reason: .unreadable("interrupted while opening")) }
            if interruption.packetWasTooLarge {
                return MediaIOError(source: path, reason: .unreadable(packetTooLargeMessage(interruption.packetLimit)))
            }
            return MediaIOError(source: path, reason: .unreadable("no answer and no picture within \(seconds(timeout)) (timed out)"))
        }
        switch -status {
        case ENOENT: return MediaIOError(source: path, reason: .fileNotFound)
        case ECONNREFUSED: return MediaIOError(source: path, reason: .unreadable("connection refused (nothing listens there)"))
        default:
            return MediaIOError(source: path, reason: .unreadable(message(status)))
        }
    }

    /// The most scans a Motion JPEG frame may have to be decoded (a camera's frames have one,
    /// a progressive JPEG about 10); MediaIO's own JPEG decoder refuses more than 500, and
    /// scans beyond 32 passes over the image.
    static let maxScansPerJPEG = 100

    /// The start-of-scan markers (0xFF 0xDA) in a JPEG packet: entropy-coded data escapes
    /// 0xFF as 0xFF 0x00, so every such pair is a scan.
    static func jpegScanCount(_ packet: UnsafeMutablePointer<AVPacket>) -> Int {
        guard let data = packet.pointee.data, packet.pointee.size > 1 else { return 0 }
        var count = 0
        for i in 0..<Int(packet.pointee.size - 1) where data[i] == 0xFF && data[i + 1] == 0xDA {
            count += 1
        }
        return count
    }

    /// Why a read taking more than `limit` bytes was stopped.
    static func packetTooLargeMessage(_ limit: Int64) -> String {
        "a part of the stream is larger than \(limit) bytes (VideoSourceOptions.maxPacketBytes) without ending:"
            + " an MJPEG part with a huge or missing Content-Length, or not a video stream"
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

/// What FFmpeg's interrupt callback of a live reader checks: the token (a stop request), the
/// deadline of the open or read in progress, and how many bytes the read in progress has
/// taken from the source (`VideoSourceOptions.maxPacketBytes`).
final class Interruption: @unchecked Sendable {
    let token: InterruptToken?
    private let lock = NSLock()
    private var deadline: UInt64 = 0
    private let maxPacketBytes: Int64
    /// The reader's context once opened (its `pb` counts the bytes read from the source).
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var packetStart: Int64 = 0
    private var tooLarge = false

    init(token: InterruptToken?, maxPacketBytes: Int) {
        self.token = token
        self.maxPacketBytes = Int64(max(0, maxPacketBytes))
    }

    /// Starts a wait of at most `seconds` (0: no limit).
    func arm(seconds: Double) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock { deadline = seconds > 0 ? now &+ UInt64(min(seconds, 1e6) * 1e9) : 0 }
    }

    /// The context whose byte position bounds a read (set once it is opened: until then, the
    /// bytes count from the source's start, probing included).
    func watch(_ format: UnsafeMutablePointer<AVFormatContext>) { lock.withLock { self.format = format } }

    /// A new packet is read from here: the byte bound counts from the source's position now.
    func beginPacket() {
        lock.withLock { packetStart = format?.pointee.pb?.pointee.pos ?? packetStart }
    }

    /// Whether the last read was ended because it took more than `maxPacketBytes`.
    var packetWasTooLarge: Bool { lock.withLock { tooLarge } }

    /// The byte bound, for messages.
    var packetLimit: Int64 { maxPacketBytes }

    /// FFmpeg asks during every blocking wait and before every read from the source: stop on
    /// request, past the deadline, or when the read in progress has taken over `maxPacketBytes`
    /// (one MJPEG part whose length is huge or missing grew the process by gigabytes).
    func shouldInterrupt() -> Bool {
        if token?.isInterrupted == true { return true }
        let now = DispatchTime.now().uptimeNanoseconds
        return lock.withLock {
            if maxPacketBytes > 0, let io = format?.pointee.pb, io.pointee.pos - packetStart > maxPacketBytes {
                tooLarge = true
                return true
            }
            return deadline != 0 && now > deadline
        }
    }
}

/// FFmpeg's `AVIOInterruptCB` callback: non-zero ends the blocking open or read in progress.
private let videoReaderInterruptCallback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
    guard let opaque else { return 0 }
    return Unmanaged<Interruption>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt() ? 1 : 0
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
