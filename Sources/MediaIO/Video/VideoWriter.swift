import CFFmpeg
import Foundation
import VisionTasks

/// Writes RGB frames to a video file (MP4 unless the file name asks for MOV, MKV, AVI or WebM)
/// with FFmpeg: H.264 through libx264 when the system's FFmpeg has it, MPEG-4 part 2 otherwise;
/// VP8 (libvpx) for WebM, which allows only VP8, VP9 and AV1.
///
/// Frames must all have the size given at creation; odd widths and heights are padded by one
/// pixel (repeating the last column or row), as 4:2:0 video needs even dimensions.
/// Call `finish()` to flush the encoder and complete the file.
public final class VideoWriter {
    /// The file being written.
    public let path: String
    /// The encoder in use (`libx264`, `mpeg4` or, for WebM, `libvpx`).
    public let codecName: String
    /// Frame width accepted by `append`.
    public let width: Int
    /// Frame height accepted by `append`.
    public let height: Int

    private var output: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var scaler: OpaquePointer?
    private let stream: UnsafeMutablePointer<AVStream>
    private let encodedWidth: Int
    private let encodedHeight: Int
    private let frameDuration: Int
    private var lastTimestamp = -1
    private var finished = false

    /// Creates the file and the encoder. `framesPerSecond` sets the encoder's rate control and
    /// the timestamps of frames appended without one.
    /// `displayRotation` (degrees clockwise, a multiple of 90) tags the stream with a display
    /// matrix, as phones do; the frames are stored as given.
    public init(path: String, width: Int, height: Int, framesPerSecond: Double = 30, displayRotation: Int = 0) throws {
        self.path = path
        self.width = width
        self.height = height
        try ImageLimits.check(width: width, height: height, source: path)
        VideoReader.quietFFmpegLogs()
        encodedWidth = width + width % 2
        encodedHeight = height + height % 2
        let fps = framesPerSecond > 0 && framesPerSecond.isFinite ? framesPerSecond : 30
        frameDuration = max(1, Int((1000 / fps).rounded()))

        var context: UnsafeMutablePointer<AVFormatContext>?
        let ext = (path as NSString).pathExtension.lowercased()
        let formatName: String? = ["mp4", "mov", "mkv", "webm", "avi"].contains(ext) ? nil : "mp4"
        var status = avformat_alloc_output_context2(&context, nil, formatName, path)
        guard status >= 0, let ctx = context else {
            throw MediaIOError(source: path, reason: .encoding("cannot create the container: \(VideoReader.message(status))"))
        }
        let webM = ext == "webm"
        var encoder = avcodec_find_encoder_by_name(webM ? "libvpx" : "libx264")
        if encoder == nil, !webM { encoder = avcodec_find_encoder(AV_CODEC_ID_MPEG4) }
        guard let encoder, let newStream = avformat_new_stream(ctx, nil), let codecContext = avcodec_alloc_context3(encoder) else {
            avformat_free_context(ctx)
            throw MediaIOError(
                source: path, reason: .encoding(webM ? "no VP8 encoder (libvpx) in this FFmpeg" : "no H.264 or MPEG-4 encoder in this FFmpeg"))
        }
        output = ctx
        codec = codecContext
        stream = newStream
        codecName = String(cString: encoder.pointee.name)

        codecContext.pointee.width = Int32(encodedWidth)
        codecContext.pointee.height = Int32(encodedHeight)
        codecContext.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        codecContext.pointee.time_base = AVRational(num: 1, den: 1000)
        codecContext.pointee.framerate = av_d2q(fps, 100_000)
        if ext == "avi" {
            // AVI stores no presentation times: reordered (B) frames would come back with shifted
            // timestamps, so the encoder keeps frames in order.
            codecContext.pointee.max_b_frames = 0
        }
        if codecName == "libx264" {
            av_opt_set(codecContext.pointee.priv_data, "preset", "veryfast", 0)
            av_opt_set(codecContext.pointee.priv_data, "crf", "20", 0)
        } else {
            codecContext.pointee.gop_size = 12
            codecContext.pointee.bit_rate = Int64(max(1_000_000, Double(encodedWidth * encodedHeight) * fps / 8))
            if codecName == "libvpx" {
                av_opt_set(codecContext.pointee.priv_data, "deadline", "realtime", 0)
                av_opt_set(codecContext.pointee.priv_data, "cpu-used", "8", 0)
            }
        }
        if ctx.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            codecContext.pointee.flags |= Int32(1 << 22) // AV_CODEC_FLAG_GLOBAL_HEADER
        }
        status = avcodec_open2(codecContext, encoder, nil)
        if status >= 0 { status = avcodec_parameters_from_context(newStream.pointee.codecpar, codecContext) }
        if status >= 0 {
            newStream.pointee.time_base = codecContext.pointee.time_base
            status = avio_open(&ctx.pointee.pb, path, AVIO_FLAG_WRITE)
        }
        if status >= 0, displayRotation % 360 != 0 {
            status = vt_stream_set_display_rotation(newStream, Double(displayRotation))
        }
        if status >= 0 { status = avformat_write_header(ctx, nil) }
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        if status >= 0, let frame {
            frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            frame.pointee.width = Int32(encodedWidth)
            frame.pointee.height = Int32(encodedHeight)
            status = av_frame_get_buffer(frame, 0)
        }
        if status < 0 || frame == nil || packet == nil {
            let message = VideoReader.message(status)
            release()
            throw MediaIOError(source: path, reason: .encoding(message))
        }
    }

    deinit { release() }

    private func release() {
        if scaler != nil { sws_freeContext(scaler); scaler = nil }
        if frame != nil { av_frame_free(&frame) }
        if packet != nil { av_packet_free(&packet) }
        if codec != nil { avcodec_free_context(&codec) }
        if let output {
            if output.pointee.pb != nil { avio_closep(&output.pointee.pb) }
            avformat_free_context(output)
            self.output = nil
        }
    }

    /// Encodes one frame (any packed format; converted to RGB first). `timestampInMilliseconds`
    /// defaults to the previous one + 1000 / fps; timestamps must increase.
    public func append(_ image: PixelBuffer, timestampInMilliseconds: Int? = nil) throws {
        guard !finished, let codec, let frame else {
            throw MediaIOError(source: path, reason: .encoding("the writer is finished"))
        }
        guard image.width == width, image.height == height else {
            throw MediaIOError(source: path, reason: .image(.invalidArgument(
                "frame is \(image.width)x\(image.height), the video is \(width)x\(height)")))
        }
        let rgb = Self.padded(image.convertedToRGB8(), toWidth: encodedWidth, height: encodedHeight)
        var status = av_frame_make_writable(frame)
        guard status >= 0 else { throw MediaIOError(source: path, reason: .encoding(VideoReader.message(status))) }
        scaler = sws_getCachedContext(
            scaler, Int32(encodedWidth), Int32(encodedHeight), AV_PIX_FMT_RGB24, Int32(encodedWidth), Int32(encodedHeight),
            AV_PIX_FMT_YUV420P, Int32(SWS_BICUBIC), nil, nil, nil)
        guard let scaler else { throw MediaIOError(source: path, reason: .encoding("swscale cannot convert RGB to YUV")) }
        rgb.bytes.withUnsafeBufferPointer { src in
            var planes: [UnsafePointer<UInt8>?] = [src.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(rgb.bytesPerRow), 0, 0, 0]
            withUnsafePointer(to: &frame.pointee.data) { data in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { dst in
                    withUnsafePointer(to: &frame.pointee.linesize) { lines in
                        lines.withMemoryRebound(to: Int32.self, capacity: 8) { dstStride in
                            _ = sws_scale(scaler, &planes, &strides, 0, Int32(encodedHeight), dst, dstStride)
                        }
                    }
                }
            }
        }
        var timestamp = timestampInMilliseconds ?? (lastTimestamp < 0 ? 0 : lastTimestamp + frameDuration)
        if timestamp <= lastTimestamp { timestamp = lastTimestamp + 1 }
        lastTimestamp = timestamp
        frame.pointee.pts = Int64(timestamp)
        status = avcodec_send_frame(codec, frame)
        guard status >= 0 else { throw MediaIOError(source: path, reason: .encoding(VideoReader.message(status))) }
        try writePackets()
    }

    /// Flushes the encoder and completes the file. Further `append`s fail.
    public func finish() throws {
        guard !finished, let codec, let output else { return }
        finished = true
        _ = avcodec_send_frame(codec, nil)
        try writePackets()
        let status = av_write_trailer(output)
        avio_closep(&output.pointee.pb)
        guard status >= 0 else { throw MediaIOError(source: path, reason: .encoding(VideoReader.message(status))) }
    }

    private func writePackets() throws {
        guard let codec, let packet, let output else { return }
        while true {
            let status = avcodec_receive_packet(codec, packet)
            if status == -EAGAIN || status == -0x2046_4F45 { return }
            guard status >= 0 else { throw MediaIOError(source: path, reason: .encoding(VideoReader.message(status))) }
            // Without durations the MP4 muxer's edit list leaves the last frame out.
            if packet.pointee.duration <= 0 { packet.pointee.duration = Int64(frameDuration) }
            av_packet_rescale_ts(packet, codec.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            let written = av_interleaved_write_frame(output, packet)
            av_packet_unref(packet)
            guard written >= 0 else { throw MediaIOError(source: path, reason: .encoding(VideoReader.message(written))) }
        }
    }

    /// `image` grown to `width` x `height` by repeating its last column and row.
    static func padded(_ image: PixelBuffer, toWidth width: Int, height: Int) -> PixelBuffer {
        if image.width == width, image.height == height { return image }
        let row = width * 3
        var out = [UInt8](repeating: 0, count: row * height)
        for y in 0..<height {
            let sy = min(y, image.height - 1)
            for x in 0..<width {
                let sx = min(x, image.width - 1)
                let s = sy * image.bytesPerRow + sx * 3
                out[y * row + x * 3] = image.bytes[s]
                out[y * row + x * 3 + 1] = image.bytes[s + 1]
                out[y * row + x * 3 + 2] = image.bytes[s + 2]
            }
        }
        return PixelBuffer(unchecked: width, height: height, format: .rgb8, bytesPerRow: row, bytes: out)
    }
}
