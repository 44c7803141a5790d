/// The largest images `PixelBuffer`, `MPImage` and the decoders in MediaIO accept. Declared
/// dimensions are checked against these before any pixel memory is allocated, so a small file
/// claiming a huge image cannot exhaust memory.
public enum ImageLimits {
    /// Largest width or height, in pixels.
    public static let maxSide = 65_535
    /// Largest number of pixels (2^28, about 268 megapixels).
    public static let maxPixels = 1 << 28

    /// Throws `MediaError.Reason.tooLarge` (or `.invalidArgument` for non-positive sizes).
    package static func validate(width: Int, height: Int, source: String) throws(MediaError) {
        guard width > 0, height > 0 else {
            throw MediaError(source: source, reason: .invalidArgument("dimensions \(width)x\(height) must be positive"))
        }
        guard width <= maxSide, height <= maxSide, width.multipliedReportingOverflow(by: height).partialValue <= maxPixels
        else {
            throw MediaError(source: source, reason: .tooLarge(width: width, height: height))
        }
    }
}
