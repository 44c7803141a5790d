/// One decoded frame of a video.
public struct VideoFrame: Sendable {
    /// 0-based index of the frame in decoding output (presentation) order.
    public var index: Int
    /// Presentation time in milliseconds from the start of the stream (see `VideoReader`).
    public var timestampInMilliseconds: Int
    /// The pixels, RGB8 (rows may be padded: honour `bytesPerRow`).
    public var image: PixelBuffer
}

/// What a video file declares about its video stream.
public struct VideoInfo: Sendable, Equatable {
    /// Frame width in pixels.
    public var width: Int
    /// Frame height in pixels.
    public var height: Int
    /// Frames per second as FFmpeg guesses it (`av_guess_frame_rate`, as OpenCV reports it);
    /// 0 when unknown.
    public var framesPerSecond: Double
    /// The number of frames the container declares, or an estimate from duration x fps;
    /// nil when neither is known.
    public var declaredFrameCount: Int?
    /// Duration in seconds, when known.
    public var durationSeconds: Double?
    /// The codec's short name (h264, vp9, mjpeg, gif...).
    public var codecName: String
    /// The container's short name (mov,mp4,m4a,..., matroska,webm, avi, gif...).
    public var containerName: String
    /// The display rotation the container declares (the MP4 display matrix of phone videos),
    /// in degrees clockwise: 0, 90, 180 or 270. `width` and `height` are the stored frame size;
    /// `VideoReader` turns frames upright by this rotation unless told not to.
    public var displayRotation: Int = 0
}
