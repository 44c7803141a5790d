/// Why pixels in memory do not make a valid image, and where they came from.
///
/// `PixelBuffer`, `MPImage(pixels:...)` and the other initialisers from raw pixels throw it: sizes,
/// strides or formats that do not describe an image, or dimensions beyond `ImageLimits`, refused
/// before any pixel memory is allocated. (Reading and writing files and videos is MediaIO's, and
/// fails with MediaIO's `MediaIOError`.) `description` is a complete sentence for users.
public struct MediaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// The declared dimensions exceed `ImageLimits`, or a caller's own pixel limit (MediaIO's
        /// decoders take one); refused before allocating.
        case tooLarge(width: Int, height: Int)
        /// Raw pixels or arguments do not describe a valid image (sizes, strides, formats).
        case invalidArgument(String)
    }

    /// Where the pixels came from: `<pixels>`, `<new image>` or the caller's name for them.
    public var source: String
    /// What went wrong.
    public var reason: Reason

    /// An error about `source` (a description such as `<pixels>`, or a file path).
    public init(source: String, reason: Reason) {
        self.source = source
        self.reason = reason
    }

    public var description: String {
        let what: String
        switch reason {
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
        }
        return "\(source): \(what)"
    }
}
