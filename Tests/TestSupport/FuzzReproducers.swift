import MediaIO
import VisionTasks

/// Inputs that crashed a fuzz target (`scripts/fuzz`), kept as regression cases: the bytes are
/// written out here rather than stored as binary files.
public enum FuzzReproducers {
    /// 117 bytes found by `scripts/fuzz taskbundle` (and, appended to a model, by `scripts/fuzz model`):
    /// zip64 records that put the central directory beyond 2^63, on which ZIPFoundation trapped.
    public static let zip64DirectoryBeyond2To63 = bytes(
        "504b03041460e0606038565700000075af8c9d504b0606b980b8253755afa4000027b52c3547c130"
            + "0045f9d417a02cc2a0c020c320c1c8806a718037481b2b8811082da1742658192d50ad504b060701"
            + "02150314000008000052" + "7b785d126b504b0506000000000200020071000000cb0000000000")

    /// The shape of the input `scripts/fuzz http` found (docs/fuzzing.md, defect 4): a JPEG with
    /// 93 stray bytes (45 zeros, then 48 times 0xA4) between its last quantisation table and its
    /// frame header. libjpeg skips stray bytes between segments with a warning and decodes the
    /// image; a header scan that stops at them finds no size, so a pixel limit applied from the
    /// scan alone is never applied. The fuzzer's image was 84 x 84 under a 4096-pixel limit; any
    /// size and pixels show the same.
    public static func jpegWithStrayBytesBeforeFrameHeader(width: Int, height: Int) throws -> [UInt8] {
        // Smooth gradients, so that even a megapixel image encodes in a few tens of kilobytes.
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in pixels.indices {
            let x = i / 3 % width, y = i / 3 / width
            pixels[i] = UInt8(truncatingIfNeeded: x * 200 / width + y * 50 / height + i % 3 * 60)
        }
        let jpeg = try ImageEncoder.jpeg(PixelBuffer(width: width, height: height, format: .rgb8, bytes: pixels))
        guard let sof = (2..<(jpeg.count - 1)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }) else {
            throw MediaIOError(source: "jpegWithStrayBytesBeforeFrameHeader", reason: .corrupt("the encoder wrote no SOF0 marker"))
        }
        return Array(jpeg[..<sof]) + [UInt8](repeating: 0, count: 45) + [UInt8](repeating: 0xA4, count: 48) + Array(jpeg[sof...])
    }

    /// The shape of the input `scripts/fuzz image` found in CI (docs/fuzzing.md, defect 6): a PNG
    /// that ends in a text chunk's header declaring 1 685 021 284 bytes (0x646F6264; libpng asks
    /// for one byte more, `malloc(1685021285)`). libpng 1.6 only warns that a chunk is over its
    /// 8 MB limit (a "benign error"), then allocates the declared length before reading a byte of
    /// it, unless the reader skips the chunk.
    public static func pngWithChunkDeclaringGigabytes(_ png: [UInt8]) -> [UInt8] {
        // Signature (8 bytes) and IHDR (25), then the chunk's length, type and two bytes.
        Array(png.prefix(33)) + [0x64, 0x6F, 0x62, 0x64] + Array("tEXt".utf8) + [0x61, 0x62]
    }

    /// Bytes from hexadecimal digits.
    public static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).map { i in
            UInt8(String(decoding: digits[i...(i + 1)], as: UTF8.self), radix: 16) ?? 0
        }
    }
}
