import VisionTasks

/// Why reading or writing an image or a video failed, and which file, stream or data it was.
///
/// Every failure of MediaIO is one of these: a missing or unreadable file, data that is not an
/// image, a truncated or corrupt file, a video that cannot be opened or decoded, an encoder
/// failure, or an image VisionTasks refuses (too large to allocate, sizes that do not describe an
/// image: `.image`, with VisionTasks' own `MediaError.Reason`). `description` is a complete
/// sentence for users.
public struct MediaIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// The file does not exist.
        case fileNotFound
        /// The file exists but could not be read (permissions, a directory, I/O error).
        case unreadable(String)
        /// The file or data is empty.
        case empty
        /// The data is not in a format we can decode (neither JPEG nor PNG, no video stream...).
        case unsupportedFormat(String)
        /// The data ends before the image or video does.
        case truncated(String)
        /// The data is damaged or malformed.
        case corrupt(String)
        /// The image read or written is one VisionTasks refuses, for the reason VisionTasks gives
        /// for pixels in memory: `.tooLarge`, dimensions beyond `ImageLimits` or the caller's own
        /// pixel limit (`ImageDecoder.decode(_:source:maxPixels:)`), refused before allocating;
        /// `.invalidArgument`, sizes, strides or formats that do not describe an image.
        case image(MediaError.Reason)
        /// A video could not be opened or decoded.
        case videoDecoding(String)
        /// Encoding or writing an image or a video failed.
        case encoding(String)
    }

    /// The file path, or a name such as `<memory>` or `<stdin>` for data without a file.
    public var source: String
    /// What went wrong.
    public var reason: Reason

    /// An error about `source` (a file path or a description such as `<data>`).
    public init(source: String, reason: Reason) {
        self.source = source
        self.reason = reason
    }

    /// VisionTasks' error about pixels in memory, as MediaIO reports it.
    init(_ error: MediaError) {
        self.init(source: error.source, reason: .image(error.reason))
    }

    public var description: String {
        let what: String
        switch reason {
        case .fileNotFound: what = "no such file"
        case .unreadable(let detail): what = "cannot be read: \(detail)"
        case .empty: what = "is empty"
        case .unsupportedFormat(let detail): what = "is not a supported image or video: \(detail)"
        case .truncated(let detail): what = "is truncated: \(detail)"
        case .corrupt(let detail): what = "is corrupt: \(detail)"
        case .image(let reason): return MediaError(source: source, reason: reason).description
        case .videoDecoding(let detail): what = "cannot be decoded as video: \(detail)"
        case .encoding(let detail): what = "cannot be written: \(detail)"
        }
        return "\(source): \(what)"
    }
}
