/// The largest images `PixelBuffer`, `MPImage` and the decoders in MediaIO accept. Declared
/// dimensions are checked against these before any pixel memory is allocated, so a small file
/// claiming a huge image cannot exhaust memory: an encoded image may also declare no more pixels
/// than its size can encode (`maxPixelsPerEncodedByte`), which keeps decoding memory proportional
/// to the file.
public enum ImageLimits {
    /// Largest width or height, in pixels.
    public static let maxSide = 65_535
    /// Largest number of pixels (2^28, about 268 megapixels).
    public static let maxPixels = 1 << 28

    /// The most pixels one byte of an encoded image can hold. Deflate expands at most 1032:1 and a
    /// PNG packs up to 8 one-bit pixels in a byte; a Huffman-coded JPEG spends at least one bit on
    /// each 8x8 block of a component it codes, sampled at most 4x4 (8 x 64 x 16 = 8192 pixels a
    /// byte). A file declaring more is damaged or a decompression bomb. (An arithmetic-coded JPEG
    /// could in principle compress further; it is held to the same rule.)
    public static let maxPixelsPerEncodedByte = 8 * 1032

    /// Throws `MediaError.Reason.tooLarge` (or `.invalidArgument` for non-positive sizes).
    @_spi(Apps) public static func validate(width: Int, height: Int, source: String) throws(MediaError) {
        guard width > 0, height > 0 else {
            throw MediaError(source: source, reason: .invalidArgument("dimensions \(width)x\(height) must be positive"))
        }
        guard width <= maxSide, height <= maxSide, width.multipliedReportingOverflow(by: height).partialValue <= maxPixels
        else {
            throw MediaError(source: source, reason: .tooLarge(width: width, height: height))
        }
    }
}
