import CKernels

/// An owned image in memory: `height` rows of pixels in `format`, `bytesPerRow` bytes apart.
///
/// For the NV12 formats the storage holds the Y plane (`height` rows of `bytesPerRow` bytes)
/// followed by the interleaved CbCr plane (`(height + 1) / 2` rows of `chromaBytesPerRow`
/// bytes, each row `2 * ((width + 1) / 2)` bytes used). For packed formats `chromaBytesPerRow`
/// is 0. The storage is a copy-on-write array: copies of a `PixelBuffer` share it until one
/// is mutated.
public struct PixelBuffer: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Layout of the pixels.
    public let format: PixelFormat
    /// Bytes from one row to the next (of the Y plane for NV12).
    public let bytesPerRow: Int
    /// Bytes from one CbCr row to the next (NV12 only; 0 otherwise).
    public let chromaBytesPerRow: Int
    /// The pixel bytes (see the type's description for the layout).
    public package(set) var bytes: [UInt8]

    /// Wraps pixel bytes, checking that `bytes` holds the whole image.
    /// `bytesPerRow` defaults to the tightly packed row size; `chromaBytesPerRow` (NV12 only)
    /// to `2 * ((width + 1) / 2)`.
    public init(
        width: Int, height: Int, format: PixelFormat, bytesPerRow: Int? = nil,
        chromaBytesPerRow: Int? = nil, bytes: [UInt8], source: String = "<pixels>"
    ) throws {
        try ImageLimits.validate(width: width, height: height, source: source)
        let rowBytes = bytesPerRow ?? width * format.bytesPerPixel
        guard rowBytes >= width * format.bytesPerPixel else {
            throw MediaError(source: source, reason: .invalidArgument(
                "bytesPerRow \(rowBytes) is less than \(width) pixels x \(format.bytesPerPixel) bytes"))
        }
        var chroma = 0
        if format.isBiPlanar {
            chroma = chromaBytesPerRow ?? Self.chromaRowBytes(width: width)
            guard chroma >= Self.chromaRowBytes(width: width) else {
                throw MediaError(source: source, reason: .invalidArgument(
                    "CbCr bytesPerRow \(chroma) is less than the \(Self.chromaRowBytes(width: width)) bytes a row needs"))
            }
        }
        // Strides come from the caller (a camera frame's header, a network message): a huge one
        // must be an error, not an overflow trap.
        guard let needed = Self.checkedByteCount(height: height, bytesPerRow: rowBytes, chromaBytesPerRow: chroma) else {
            throw MediaError(source: source, reason: .invalidArgument(
                "bytesPerRow \(rowBytes) (CbCr \(chroma)) for \(height) rows is more bytes than memory can hold"))
        }
        guard bytes.count >= needed else {
            throw MediaError(source: source, reason: .invalidArgument(
                "\(bytes.count) bytes given, a \(width)x\(height) \(format.rawValue) image needs \(needed)"))
        }
        self.width = width
        self.height = height
        self.format = format
        self.bytesPerRow = rowBytes
        self.chromaBytesPerRow = chroma
        self.bytes = bytes
    }

    /// A new image of packed `format` filled with zero bytes (black, transparent).
    public init(width: Int, height: Int, format: PixelFormat) throws {
        let chroma = format.isBiPlanar ? Self.chromaRowBytes(width: width) : 0
        try ImageLimits.validate(width: width, height: height, source: "<new image>")
        let rowBytes = width * format.bytesPerPixel
        self.init(
            unchecked: width, height: height, format: format, bytesPerRow: rowBytes, chromaBytesPerRow: chroma,
            bytes: [UInt8](repeating: 0, count: Self.byteCount(height: height, bytesPerRow: rowBytes, chromaBytesPerRow: chroma)))
    }

    /// For callers that have already validated everything (the decoders in MediaIO).
    package init(unchecked width: Int, height: Int, format: PixelFormat, bytesPerRow: Int, chromaBytesPerRow: Int = 0, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.format = format
        self.bytesPerRow = bytesPerRow
        self.chromaBytesPerRow = chromaBytesPerRow
        self.bytes = bytes
    }

    /// Bytes a tightly packed NV12 CbCr row needs.
    package static func chromaRowBytes(width: Int) -> Int { 2 * ((width + 1) / 2) }

    package static func byteCount(height: Int, bytesPerRow: Int, chromaBytesPerRow: Int) -> Int {
        height * bytesPerRow + ((height + 1) / 2) * chromaBytesPerRow
    }

    /// `byteCount`, or nil when it does not fit in an `Int`.
    package static func checkedByteCount(height: Int, bytesPerRow: Int, chromaBytesPerRow: Int) -> Int? {
        let luma = height.multipliedReportingOverflow(by: bytesPerRow)
        let chroma = ((height + 1) / 2).multipliedReportingOverflow(by: chromaBytesPerRow)
        guard !luma.overflow, !chroma.overflow else { return nil }
        let total = luma.partialValue.addingReportingOverflow(chroma.partialValue)
        return total.overflow ? nil : total.partialValue
    }

    /// Offset of the CbCr plane in `bytes` (NV12).
    package var chromaOffset: Int { height * bytesPerRow }

    /// The bytes of pixel (x, y) of a packed image (for NV12: its Y sample).
    public func pixel(x: Int, y: Int) -> ArraySlice<UInt8> {
        let start = y * bytesPerRow + x * format.bytesPerPixel
        return bytes[start..<(start + format.bytesPerPixel)]
    }

    /// Whether the rows are tightly packed (no padding after each row).
    public var isContiguous: Bool { bytesPerRow == width * format.bytesPerPixel && !format.isBiPlanar }

    /// This image as RGB8 (alpha dropped, grey replicated, NV12 converted with BT.601);
    /// `self` when it already is RGB8.
    public func convertedToRGB8() -> PixelBuffer {
        if format == .rgb8 { return self }
        let outRow = width * 3
        var out = [UInt8](repeating: 0, count: outRow * height)
        bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                switch format {
                case .rgb8, .rgba8, .bgra8, .gray8:
                    let packed: ck_packed_format
                    switch format {
                    case .rgba8: packed = CK_PACKED_RGBA8
                    case .bgra8: packed = CK_PACKED_BGRA8
                    case .gray8: packed = CK_PACKED_GRAY8
                    default: packed = CK_PACKED_RGB8
                    }
                    ck_packed_to_rgb8(s, bytesPerRow, packed, width, height, d, outRow)
                case .nv12FullRange, .nv12VideoRange:
                    ck_nv12_to_rgb8(
                        s, bytesPerRow, s + chromaOffset, chromaBytesPerRow, width, height,
                        format == .nv12VideoRange ? 1 : 0, d, outRow)
                }
            }
        }
        return PixelBuffer(unchecked: width, height: height, format: .rgb8, bytesPerRow: outRow, bytes: out)
    }

    /// This image displayed in `orientation` (rotated and/or mirrored; width and height swap
    /// for the quarter turns). Packed formats only; NV12 is converted to RGB8 first.
    public func reoriented(_ orientation: EXIFOrientation) -> PixelBuffer {
        let source = format.isBiPlanar ? convertedToRGB8() : self
        if orientation == .up { return source }
        let channels = source.format.bytesPerPixel
        let outWidth = orientation.swapsDimensions ? source.height : source.width
        let outHeight = orientation.swapsDimensions ? source.width : source.height
        let outRow = outWidth * channels
        var out = [UInt8](repeating: 0, count: outRow * outHeight)
        source.bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                ck_reorient(
                    s, source.bytesPerRow, source.width, source.height, channels,
                    Int32(orientation.rawValue), d, outRow)
            }
        }
        return PixelBuffer(unchecked: outWidth, height: outHeight, format: source.format, bytesPerRow: outRow, bytes: out)
    }

    /// A tightly packed copy (rows without padding, no bytes after the last row); `self` when
    /// already packed.
    public func packed() -> PixelBuffer {
        if isContiguous, bytes.count == width * height * format.bytesPerPixel { return self }
        if format.isBiPlanar { return convertedToRGB8() }
        let rowBytes = width * format.bytesPerPixel
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        for y in 0..<height {
            out[(y * rowBytes)..<((y + 1) * rowBytes)] = bytes[(y * bytesPerRow)..<(y * bytesPerRow + rowBytes)]
        }
        return PixelBuffer(unchecked: width, height: height, format: format, bytesPerRow: rowBytes, bytes: out)
    }
}
