import Foundation
import VisionTasks

/// Decodes the images (JPEG, PNG) and videos (through FFmpeg: MP4, MOV, WebM, MKV, AVI, GIF
/// and more) of a gesture dataset folder, for `GestureDatasetFolder` and `GestureDataset`.
/// Files are told apart by their extension.
public struct MediaFileDecoder: GestureMediaDecoder {
    /// Extensions read as still images.
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png"]
    /// Extensions read as videos.
    public static let videoExtensions: Set<String> = [
        "mp4", "m4v", "mov", "webm", "mkv", "avi", "gif", "mpg", "mpeg", "ts", "wmv", "flv", "3gp", "ogv",
    ]

    /// A decoder.
    public init() {}

    /// `.image` for the image extensions, `.video` for the video ones (in any case), else nil.
    public func mediaKind(ofFileAt url: URL) -> GestureMediaKind? {
        let ext = url.pathExtension.lowercased()
        if Self.imageExtensions.contains(ext) { return .image }
        if Self.videoExtensions.contains(ext) { return .video }
        return nil
    }

    /// The decoded image (EXIF orientation applied); `MediaIOError` when it cannot be read.
    public func image(at url: URL) throws -> MPImage {
        try MPImage(contentsOfFile: url.path)
    }

    /// Decodes every frame (display rotation applied) and passes on the first frame at or after
    /// each multiple of 1 / `framesPerSecond` seconds.
    public func sampleFrames(
        ofVideoAt url: URL, framesPerSecond: Double, _ body: (MPImage, _ timestampInMilliseconds: Int) throws -> Void
    ) throws {
        let reader = try VideoReader(path: url.path)
        let interval = 1000 / framesPerSecond
        var next = 0.0
        while let frame = try reader.nextFrame() {
            let time = Double(frame.timestampInMilliseconds)
            guard time >= next else { continue }
            try body(MPImage(pixelBuffer: frame.image), frame.timestampInMilliseconds)
            // The next sample time after this frame's, on the grid of multiples of the interval.
            next = ((time / interval).rounded(.down) + 1) * interval
        }
    }
}
