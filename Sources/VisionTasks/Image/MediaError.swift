/// Why an image could not be made from raw pixels, or reading or writing an image or a video
/// failed, and which file it was.
///
/// Raw pixels that do not describe a valid image (`PixelBuffer`, `MPImage(pixels:...)`) throw it
/// here in VisionTasks; every failure of MediaIO (decoding files, videos) is one of these too: a missing or unreadable file, data that is not an
/// image, a truncated or corrupt file, dimensions too large to allocate, invalid raw pixels,
/// or an encoder/decoder failure. `description` is a complete sentence for users.
public struct MediaError: Error, Sendable, Equatable, CustomStringConvertible {
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
        /// The declared dimensions exceed `ImageLimits`, or the caller's own pixel limit
        /// (`ImageDecoder.decode(_:source:maxPixels:)` in MediaIO); refused before allocating.
        case tooLarge(width: Int, height: Int)
        /// Raw pixels or arguments do not describe a valid image (sizes, strides, formats).
        case invalidArgument(String)
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

    public var description: String {
        let what: String
        switch reason {
        case .fileNotFound: what = "no such file"
        case .unreadable(let detail): what = "cannot be read: \(detail)"
        case .empty: what = "is empty"
        case .unsupportedFormat(let detail): what = "is not a supported image or video: \(detail)"
        case .truncated(let detail): what = "is truncated: \(detail)"
        case .corrupt(let detail): what = "is corrupt: \(detail)"
        case .tooLarge(let width, let height):
            // Name the limit that was exceeded: a 30000x30000 image is within the side limit.
            if width > ImageLimits.maxSide || height > ImageLimits.maxSide {
                what = "declares \(width)x\(height) pixels, more than the \(ImageLimits.maxSide) a side allowed"
            } else if width * height > ImageLimits.maxPixels {
                what = "declares \(width)x\(height) = \(width * height) pixels, more than the \(ImageLimits.maxPixels) allowed"
            } else {
                what = "declares \(width)x\(height) = \(width * height) pixels, more than this caller allows"
            }
        case .invalidArgument(let detail): what = "is not a valid image: \(detail)"
        case .videoDecoding(let detail): what = "cannot be decoded as video: \(detail)"
        case .encoding(let detail): what = "cannot be written: \(detail)"
        }
        return "\(source): \(what)"
    }
}
