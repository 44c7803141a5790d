import Foundation
@_spi(Apps) import VisionTasks

/// A decoded image file: its pixels, already turned upright by the file's EXIF orientation.
public struct DecodedImage: Sendable {
    /// The container the pixels came from.
    public enum Container: String, Sendable {
        /// JPEG (baseline or progressive).
        case jpeg
        /// PNG.
        case png
    }

    /// The upright pixels: `.rgb8`, `.rgba8` (PNG with transparency) or `.gray8`.
    public var pixels: PixelBuffer
    /// The file format.
    public var container: Container
    /// The EXIF orientation the file declared (JPEG only; `.up` otherwise). It has already been
    /// applied to `pixels`, mirrored orientations included.
    public var exifOrientation: EXIFOrientation
}

/// Decodes JPEG and PNG images from files or memory.
///
/// JPEG pixels equal those of MediaPipe's own image loader (see `ck_jpeg.h`); a JPEG's EXIF
/// orientation is applied physically, so phone photos come out upright, as MediaPipe's
/// `Image.create_from_file` does. Errors are `MediaIOError`s naming the source.
public enum ImageDecoder {
    /// Reads and decodes the image file at `path`.
    public static func decode(contentsOfFile path: String) throws -> DecodedImage {
        let bytes = try readFile(path)
        return try decode(bytes, source: path)
    }

    /// Decodes encoded image bytes (JPEG or PNG); `source` names them in errors. An image of more
    /// than `maxPixels` pixels is `MediaIOError.Reason.image(.tooLarge)`, refused from the dimensions the
    /// decoder itself parsed, before any pixel memory is allocated (a caller's own limit, e.g. a
    /// server's; `ImageLimits` always apply).
    public static func decode(_ data: [UInt8], source: String = "<memory>", maxPixels: Int = ImageLimits.maxPixels) throws -> DecodedImage {
        try data.withUnsafeBytes { try decode($0, source: source, maxPixels: maxPixels) }
    }

    /// Decodes encoded image bytes (JPEG or PNG); `source` names them in errors. An image of more
    /// than `maxPixels` pixels is `MediaIOError.Reason.image(.tooLarge)`, refused from the dimensions the
    /// decoder itself parsed, before any pixel memory is allocated (a caller's own limit, e.g. a
    /// server's; `ImageLimits` always apply).
    public static func decode(_ data: Data, source: String = "<memory>", maxPixels: Int = ImageLimits.maxPixels) throws -> DecodedImage {
        try data.withUnsafeBytes { try decode($0, source: source, maxPixels: maxPixels) }
    }

    /// `decode(_:source:maxPixels:)` with a JPEG's reconstruction (inverse DCT, upsampling,
    /// colour conversion) shared over a task's model threads (nil: the calling thread alone);
    /// the pixels are the same. For a caller that decodes each frame and then runs the task on
    /// it, on one thread (a server's live session).
    @_spi(Apps) public static func decode(
        _ data: some ContiguousBytes, source: String = "<memory>", maxPixels: Int = ImageLimits.maxPixels,
        threads: TaskThreads?
    ) throws -> DecodedImage {
        try data.withUnsafeBytes { try decode($0, source: source, maxPixels: maxPixels, pool: threads?.handle) }
    }

    /// The container of encoded bytes, from their signature; nil when neither JPEG nor PNG.
    public static func container(of data: UnsafeRawBufferPointer) -> DecodedImage.Container? {
        if data.count >= 3, data[0] == 0xFF, data[1] == 0xD8, data[2] == 0xFF { return .jpeg }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if data.count >= 8, (0..<8).allSatisfy({ data[$0] == png[$0] }) { return .png }
        return nil
    }

    static func decode(
        _ data: UnsafeRawBufferPointer, source: String, maxPixels: Int = ImageLimits.maxPixels, pool: OpaquePointer? = nil
    ) throws -> DecodedImage {
        guard data.count > 0 else { throw MediaIOError(source: source, reason: .empty) }
        switch container(of: data) {
        case .jpeg:
            let stored = try JPEGDecoder.decode(data, source: source, maxPixels: maxPixels, pool: pool)
            let orientation = EXIFReader.orientation(inJPEG: data)
            return DecodedImage(pixels: stored.reoriented(orientation), container: .jpeg, exifOrientation: orientation)
        case .png:
            return DecodedImage(pixels: try PNGDecoder.decode(data, source: source, maxPixels: maxPixels), container: .png, exifOrientation: .up)
        case nil:
            let head = data.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
            throw MediaIOError(source: source, reason: .unsupportedFormat("not a JPEG or PNG file (starts with \(head))"))
        }
    }

    /// The whole file, with typed errors for missing, unreadable and empty files.
    static func readFile(_ path: String) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MediaIOError(source: path, reason: .fileNotFound)
        }
        if isDirectory.boolValue { throw MediaIOError(source: path, reason: .unreadable("it is a directory")) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MediaIOError(source: path, reason: .unreadable("permission denied or I/O error"))
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw MediaIOError(source: path, reason: .unreadable(String(describing: error)))
        }
        guard !data.isEmpty else { throw MediaIOError(source: path, reason: .empty) }
        return [UInt8](data)
    }
}
