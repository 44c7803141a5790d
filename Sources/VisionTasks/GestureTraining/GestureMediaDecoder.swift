import Foundation

/// What a file in a gesture dataset folder is.
public enum GestureMediaKind: Sendable, Equatable {
    /// A still image: one sample.
    case image
    /// A video: frames sampled at `GestureDatasetOptions.videoFramesPerSecond`.
    case video
}

/// Decodes the image and video files of a gesture dataset folder into `MPImage`s. VisionTasks
/// walks the folder and embeds the hands; decoding files needs a media library, which the core
/// does not link: MediaIO's `MediaFileDecoder` conforms (JPEG, PNG, and videos through FFmpeg),
/// and `GestureDataset(folder:embedder:options:progress:)` in MediaIO uses it.
public protocol GestureMediaDecoder: Sendable {
    /// What the file at `url` is, from its name alone; nil for a file that is neither an
    /// image nor a video this decoder reads (it is then left out, with a warning).
    func mediaKind(ofFileAt url: URL) -> GestureMediaKind?

    /// The image in the file (its EXIF orientation applied).
    func image(at url: URL) throws -> MPImage

    /// Calls `body` with frames of the video at `url`, one every 1 / `framesPerSecond` seconds
    /// of video time (the first frame at or after each such time), with the frame's time.
    func sampleFrames(ofVideoAt url: URL, framesPerSecond: Double, _ body: (MPImage, _ timestampInMilliseconds: Int) throws -> Void) throws
}
