import CJPEG
import CPNG
import Foundation
import VisionTasks

/// Encodes images as PNG (lossless: grey, RGB, RGBA) or JPEG, in memory or to a file.
public enum ImageEncoder {
    /// File formats the encoder writes.
    public enum Format: String, Sendable {
        /// PNG, lossless.
        case png
        /// JPEG, lossy.
        case jpeg

        /// The format for a file name's extension (`.png`, `.jpg`, `.jpeg`), or nil.
        public init?(pathExtension: String) {
            switch pathExtension.lowercased() {
            case "png": self = .png
            case "jpg", "jpeg": self = .jpeg
            default: return nil
            }
        }
    }

    /// PNG bytes of `image` (gray8, rgb8 and rgba8 are stored as they are; bgra8 and NV12 are
    /// converted to RGB).
    public static func png(_ image: PixelBuffer) throws -> [UInt8] {
        var source = image
        if source.format == .bgra8 || source.format.isBiPlanar { source = source.convertedToRGB8() }
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(source.width)
        png.height = UInt32(source.height)
        switch source.format {
        case .gray8: png.format = 0
        case .rgba8: png.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
        default: png.format = UInt32(PNG_FORMAT_FLAG_COLOR)
        }
        var size: Int = 0
        let stride = Int32(source.bytesPerRow)
        let ok = source.bytes.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            guard png_image_write_to_memory(&png, nil, &size, 0, base, stride, nil) != 0 else { return false }
            return true
        }
        guard ok, size > 0 else {
            throw MediaIOError(source: "<png encoder>", reason: .encoding(cString(&png.message)))
        }
        var out = [UInt8](repeating: 0, count: size)
        let written = source.bytes.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return out.withUnsafeMutableBytes { dst in
                png_image_write_to_memory(&png, dst.baseAddress, &size, 0, base, stride, nil) != 0
            }
        }
        png_image_free(&png)
        guard written else { throw MediaIOError(source: "<png encoder>", reason: .encoding(cString(&png.message))) }
        return Array(out.prefix(size))
    }

    /// JPEG bytes of `image` at `quality` (1...100); grey stays grey, everything else is RGB.
    public static func jpeg(_ image: PixelBuffer, quality: Int = 92) throws -> [UInt8] {
        let source = image.format == .gray8 ? image : image.convertedToRGB8()
        let components: Int32 = source.format == .gray8 ? 1 : 3
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        let status = source.bytes.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 1 }
            return vt_jpeg_compress(
                base, UInt32(source.width), UInt32(source.height), source.bytesPerRow, components,
                Int32(min(max(quality, 1), 100)), &out, &size, &message)
        }
        defer { free(out) }
        guard status == 0, let bytes = out else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw MediaIOError(source: "<jpeg encoder>", reason: .encoding(text))
        }
        return [UInt8](UnsafeBufferPointer(start: bytes, count: Int(size)))
    }

    /// Writes `image` to `path` in `format` (default: from the extension; PNG when unknown).
    public static func write(_ image: PixelBuffer, to path: String, format: Format? = nil, quality: Int = 92) throws {
        let chosen = format ?? Format(pathExtension: (path as NSString).pathExtension) ?? .png
        let bytes = chosen == .png ? try png(image) : try jpeg(image, quality: quality)
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        } catch {
            throw MediaIOError(source: path, reason: .encoding(error.localizedDescription))
        }
    }
}
