import Foundation

/// An image for the vision tasks, as MediaPipe's `MPImage`: raw pixels from a camera or another
/// library (RGBA8, BGRA8, RGB8, Gray8, NV12 full or video range, any row stride), with an
/// `orientation`.
///
/// Coordinates: tasks report results in the coordinates of the *upright* image, i.e. the
/// stored pixels turned by `orientation`. `width` and `height` are the upright image's
/// dimensions (for `.left` and `.right` they are the stored height and width).
///
/// Files: `import MediaIO` adds `init(contentsOfFile:)`, `init(contentsOf:)` and `init(data:)`,
/// which decode JPEG and PNG (libjpeg-turbo, libpng). A JPEG's EXIF orientation is applied
/// when loading (the pixels become upright, as in MediaPipe's `Image.create_from_file`); `orientation` then applies on top of that, so leave
/// it `.up` for files unless you know better. Decoded JPEG pixels equal MediaPipe's.
///
/// `MPImage` is immutable and safe to share between threads; the upright RGB pixels the tasks
/// need are converted once, on first use, and cached.
public final class MPImage: @unchecked Sendable {
    /// Width of the upright image, in pixels.
    public let width: Int
    /// Height of the upright image, in pixels.
    public let height: Int
    /// How the stored pixels are turned to appear upright.
    public let orientation: ImageOrientation
    /// The stored pixels (for files: already turned by the EXIF orientation).
    public let pixelBuffer: PixelBuffer

    private let lock = NSLock()
    private var cachedUpright: PixelBuffer?

    /// Wraps pixels already in memory.
    public init(pixelBuffer: PixelBuffer, orientation: ImageOrientation = .up) {
        self.pixelBuffer = pixelBuffer
        self.orientation = orientation
        width = orientation.swapsDimensions ? pixelBuffer.height : pixelBuffer.width
        height = orientation.swapsDimensions ? pixelBuffer.width : pixelBuffer.height
    }

    /// Copies raw pixels of a packed `format` (RGBA8, BGRA8, RGB8, Gray8) from any collection of
    /// bytes (`[UInt8]`, `Data`, an `UnsafeRawBufferPointer`): `height` rows of `width` pixels,
    /// `bytesPerRow` bytes apart (default: packed). For NV12 `pixels` holds the Y plane followed by
    /// the CbCr plane (or use the two-plane initialiser).
    /// Throws `MediaError.Reason.invalidArgument` when `pixels` is too short for the layout.
    public convenience init<Bytes: Collection<UInt8>>(
        pixels: Bytes, width: Int, height: Int, bytesPerRow: Int? = nil,
        format: PixelFormat, orientation: ImageOrientation = .up
    ) throws {
        let buffer = try PixelBuffer(
            width: width, height: height, format: format, bytesPerRow: bytesPerRow, bytes: [UInt8](pixels))
        self.init(pixelBuffer: buffer, orientation: orientation)
    }

    /// Copies a 4:2:0 bi-planar image (NV12, what iOS calls 420YpCbCr8BiPlanar): a Y plane of
    /// `height` rows `yBytesPerRow` apart, and a CbCr plane of `(height + 1) / 2` rows of
    /// interleaved Cb, Cr pairs, `cbcrBytesPerRow` apart. `videoRange`: Y in 16...235 (iOS
    /// `...VideoRange`); otherwise full range (`...FullRange`). Converted with BT.601.
    public convenience init(
        yPlane: UnsafeRawBufferPointer, yBytesPerRow: Int, cbcrPlane: UnsafeRawBufferPointer, cbcrBytesPerRow: Int,
        width: Int, height: Int, videoRange: Bool, orientation: ImageOrientation = .up
    ) throws {
        // Strides and sizes come from the caller: a negative or huge one is an error, not a
        // trap (an overflow, or a negative prefix length).
        try ImageLimits.validate(width: width, height: height, source: "<pixels>")
        let ySize = yBytesPerRow.multipliedReportingOverflow(by: height)
        let cSize = cbcrBytesPerRow.multipliedReportingOverflow(by: (height + 1) / 2)
        guard yBytesPerRow >= width, cbcrBytesPerRow >= PixelBuffer.chromaRowBytes(width: width),
            !ySize.overflow, !cSize.overflow, yPlane.count >= ySize.partialValue, cbcrPlane.count >= cSize.partialValue
        else {
            throw MediaError(source: "<pixels>", reason: .invalidArgument(
                "NV12 planes of \(yPlane.count) and \(cbcrPlane.count) bytes are too small for \(width)x\(height)"
                    + " with strides \(yBytesPerRow) and \(cbcrBytesPerRow)"))
        }
        var bytes = [UInt8](yPlane.prefix(ySize.partialValue))
        bytes.append(contentsOf: cbcrPlane.prefix(cSize.partialValue))
        let buffer = try PixelBuffer(
            width: width, height: height, format: videoRange ? .nv12VideoRange : .nv12FullRange,
            bytesPerRow: yBytesPerRow, chromaBytesPerRow: cbcrBytesPerRow, bytes: bytes)
        self.init(pixelBuffer: buffer, orientation: orientation)
    }

    /// The upright image as RGB8, for the tasks: converted from the stored format and turned by
    /// `orientation` on first use, then cached. When the stored pixels already are RGB8 and
    /// `.up`, they are returned as they are (no copy; rows may be padded: honour
    /// `bytesPerRow`). Throws `MPImageError.unsupportedOrientation` for mirrored orientations.
    @_spi(Apps) public func uprightRGB() throws -> PixelBuffer {
        if orientation.isMirrored { throw MPImageError.unsupportedOrientation(orientation) }
        lock.lock()
        defer { lock.unlock() }
        if let cachedUpright { return cachedUpright }
        let upright = pixelBuffer.convertedToRGB8().reoriented(orientation.exifOrientation)
        cachedUpright = upright
        return upright
    }
}
