import CPNG
import VisionTasks

/// PNG decoding with libpng: every colour type and bit depth, interlaced or not. Output is
/// 8-bit: grey, RGB or RGBA (grey with alpha becomes RGBA; 16-bit samples keep their high
/// byte, as MediaPipe's decoder does; no gamma correction is applied).
enum PNGDecoder {
    /// `maxPixels` is the caller's limit, checked by libpng's reader on the IHDR it parsed,
    /// before any pixel memory is allocated. An image beyond it or `ImageLimits` (a million rows
    /// included, which libpng alone calls an invalid header) is `MediaIOError.Reason.image(.tooLarge)`.
    static func decode(_ data: UnsafeRawBufferPointer, source: String, maxPixels: Int = ImageLimits.maxPixels) throws -> PixelBuffer {
        guard let base = data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count > 0 else {
            throw MediaIOError(source: source, reason: .empty)
        }
        var image = vt_png_image()
        let status = vt_png_decode(
            base, data.count, UInt32(ImageLimits.maxSide),
            UInt64(max(0, min(maxPixels, ImageLimits.maxPixels(encodedByteCount: data.count)))), &image)
        defer { vt_png_free(&image) }
        guard status == 0, let pixels = image.pixels else {
            let message = cString(&image.message)
            if image.truncated != 0 { throw MediaIOError(source: source, reason: .truncated(message)) }
            if message.contains("allowed"), image.width == 0 {
                // Declared dimensions refused before allocation: beyond ImageLimits, beyond what
                // a file this size can encode, or beyond the caller's maxPixels. Report them.
                let width = Int(readBigEndian(data, at: 16)), height = Int(readBigEndian(data, at: 20))
                try ImageLimits.check(width: width, height: height, encodedByteCount: data.count, source: source)
                throw MediaIOError(source: source, reason: .image(.tooLarge(width: width, height: height)))
            }
            throw MediaIOError(source: source, reason: .corrupt(message.isEmpty ? "libpng failed" : message))
        }
        let width = Int(image.width), height = Int(image.height), channels = Int(image.channels)
        let stride = image.stride
        let bytes = [UInt8](UnsafeBufferPointer(start: pixels, count: stride * height))
        switch channels {
        case 1: return PixelBuffer(unchecked: width, height: height, format: .gray8, bytesPerRow: stride, bytes: bytes)
        case 3: return PixelBuffer(unchecked: width, height: height, format: .rgb8, bytesPerRow: stride, bytes: bytes)
        case 4: return PixelBuffer(unchecked: width, height: height, format: .rgba8, bytesPerRow: stride, bytes: bytes)
        default:
            // Grey + alpha: spread the grey into R, G, B.
            var rgba = [UInt8](repeating: 0, count: width * height * 4)
            for i in 0..<(width * height) {
                let g = bytes[2 * i], a = bytes[2 * i + 1]
                rgba[4 * i] = g
                rgba[4 * i + 1] = g
                rgba[4 * i + 2] = g
                rgba[4 * i + 3] = a
            }
            return PixelBuffer(unchecked: width, height: height, format: .rgba8, bytesPerRow: width * 4, bytes: rgba)
        }
    }

    private static func readBigEndian(_ data: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        guard offset + 4 <= data.count else { return 0 }
        return (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(data[offset + $1]) }
    }
}
