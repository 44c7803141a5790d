import CJPEG
import CKernels
import VisionTasks

/// JPEG decoding: libjpeg-turbo parses the file and entropy-decodes the coefficients
/// (baseline, progressive, arithmetic, restart markers); the CKernels reconstruction
/// (`ck_jpeg.h`) turns them into pixels with the same arithmetic as the stb_image decoder that
/// MediaPipe uses to load image files, so decoded pixels equal MediaPipe's exactly.
/// Files that arithmetic does not cover (CMYK/YCCK, 12-bit samples, non-integer sampling
/// ratios) go through libjpeg-turbo's own pipeline.
///
/// Truncated data and corrupt entropy-coded data are errors, not grey or garbled pictures;
/// decoding stops at the first sign of them. A file of more than 500 scans, or whose scans go
/// over the image more than 32 times (`VT_JPEG_MAX_SCANS`, `VT_JPEG_MAX_PASSES` in the CJPEG
/// shim: each scan is another pass), is refused as unsupported, and a scan that codes again what
/// an earlier scan coded from its first bit is corrupt.
enum JPEGDecoder {
    /// `maxPixels` is the caller's limit, checked on the dimensions libjpeg read from the frame
    /// header (not a separate scan of the file, which could disagree with libjpeg about where
    /// the header is) before the coefficients are allocated.
    ///
    /// `pool` (a `ck_threadpool`, nil for the calling thread alone) shares our reconstruction's
    /// rows over its threads; the pixels do not depend on it.
    static func decode(
        _ data: UnsafeRawBufferPointer, source: String, maxPixels: Int = ImageLimits.maxPixels, pool: OpaquePointer? = nil
    ) throws -> PixelBuffer {
        guard let base = data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count > 0 else {
            throw MediaIOError(source: source, reason: .empty)
        }
        guard let reader = vt_jpeg_reader_create() else {
            throw MediaIOError(source: source, reason: .corrupt("libjpeg could not create a decoder"))
        }
        defer { vt_jpeg_reader_destroy(reader) }

        if vt_jpeg_read_header(reader, base, UInt(data.count)) != 0 {
            throw failure(reader, source: source, fatal: true)
        }
        let width = Int(reader.pointee.info.image_width)
        let height = Int(reader.pointee.info.image_height)
        // Before libjpeg allocates coefficient arrays for the whole declared image.
        try ImageLimits.check(width: width, height: height, encodedByteCount: data.count, source: source)
        guard width * height <= maxPixels else {
            throw MediaIOError(source: source, reason: .image(.tooLarge(width: width, height: height)))
        }

        let components = Int(reader.pointee.info.num_components)
        if let layout = ReconstructionLayout(reader: reader, components: components) {
            return try reconstruct(reader, layout: layout, width: width, height: height, source: source, pool: pool)
        }
        return try decodeWithLibjpeg(reader, components: components, width: width, height: height, source: source)
    }

    /// Component geometry for our own reconstruction; nil when libjpeg must do it.
    private struct ReconstructionLayout {
        var h: [Int] = []
        var v: [Int] = []
        var maxH = 1
        var maxV = 1
        var isRGB = false

        init?(reader: UnsafeMutablePointer<vt_jpeg_reader>, components: Int) {
            let info = reader.pointee.info
            guard components == 1 || components == 3, info.data_precision == 8,
                  let comps = info.comp_info else { return nil }
            maxH = Int(info.max_h_samp_factor)
            maxV = Int(info.max_v_samp_factor)
            var ids: [Int32] = []
            for c in 0..<components {
                let hs = Int(comps[c].h_samp_factor), vs = Int(comps[c].v_samp_factor)
                guard hs > 0, vs > 0, maxH % hs == 0, maxV % vs == 0 else { return nil }
                h.append(maxH / hs)
                v.append(maxV / vs)
                ids.append(comps[c].component_id)
            }
            if components == 3 {
                let namedRGB = ids == [0x52, 0x47, 0x42] // 'R', 'G', 'B'
                let adobeRGB = info.saw_Adobe_marker != 0 && info.Adobe_transform == 0 && info.saw_JFIF_marker == 0
                isRGB = namedRGB || adobeRGB
            }
        }
    }

    private static func reconstruct(
        _ reader: UnsafeMutablePointer<vt_jpeg_reader>, layout: ReconstructionLayout,
        width: Int, height: Int, source: String, pool: OpaquePointer?
    ) throws -> PixelBuffer {
        if vt_jpeg_read_coefficients(reader) != 0 { throw failure(reader, source: source, fatal: true) }
        try checkDamage(reader, source: source)
        guard let comps = reader.pointee.info.comp_info else {
            throw MediaIOError(source: source, reason: .corrupt("no component information"))
        }
        let count = layout.h.count
        // Inverse DCT of every block into one plane per component (every sample of a plane is
        // written, so the planes start uninitialised).
        var planes: [[UInt8]] = []
        var planeStride: [Int] = []
        var lowWidth: [Int] = []
        var lowHeight: [Int] = []
        for c in 0..<count {
            let blocksWide = Int(comps[c].width_in_blocks), blocksHigh = Int(comps[c].height_in_blocks)
            let stride = blocksWide * 8
            var quant = [UInt16](repeating: 0, count: 64)
            guard vt_jpeg_quant_table(reader, Int32(c), &quant) != 0 else {
                throw MediaIOError(source: source, reason: .corrupt("component \(c) has no quantisation table"))
            }
            // Every block row's coefficients first, on this thread (libjpeg is not for several
            // threads); libjpeg-turbo keeps the whole coefficient image in memory, so the rows
            // stay where they are until the reader is destroyed.
            var rows: [UnsafePointer<Int16>?] = []
            rows.reserveCapacity(blocksHigh)
            for row in 0..<blocksHigh {
                guard let blocks = vt_jpeg_block_row(reader, Int32(c), UInt32(row)) else {
                    throw failure(reader, source: source, fatal: true)
                }
                rows.append(UnsafePointer(blocks))
            }
            let plane = [UInt8](unsafeUninitializedCapacity: stride * blocksHigh * 8) { buffer, initialized in
                initialized = buffer.count
                guard let o = buffer.baseAddress else { return }
                ck_jpeg_idct_rows(rows, blocksHigh, blocksWide, quant, o, stride, pool)
            }
            planes.append(plane)
            planeStride.append(stride)
            lowWidth.append((width + layout.h[c] - 1) / layout.h[c])
            lowHeight.append((height + layout.v[c] - 1) / layout.v[c])
        }

        if count == 1 {
            var out = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height {
                out[(y * width)..<((y + 1) * width)] = planes[0][(y * planeStride[0])..<(y * planeStride[0] + width)]
            }
            return PixelBuffer(unchecked: width, height: height, format: .gray8, bytesPerRow: width, bytes: out)
        }

        // Upsample each component to full resolution and convert to RGB, in one C call.
        var status: Int32 = 0
        let out = planes[0].withUnsafeBufferPointer { p0 in
            planes[1].withUnsafeBufferPointer { p1 in
                planes[2].withUnsafeBufferPointer { p2 in
                    [UInt8](unsafeUninitializedCapacity: width * height * 3) { buffer, initialized in
                        initialized = buffer.count
                        let pointers = [p0.baseAddress, p1.baseAddress, p2.baseAddress]
                        let descriptions = (0..<3).map { c in
                            ck_jpeg_plane(samples: pointers[c], stride: planeStride[c], low_width: lowWidth[c],
                                          low_height: lowHeight[c], h: Int32(layout.h[c]), v: Int32(layout.v[c]))
                        }
                        guard let base = buffer.baseAddress, pointers.allSatisfy({ $0 != nil }) else {
                            buffer.initialize(repeating: 0)
                            status = 1
                            return
                        }
                        status = ck_jpeg_planes_to_rgb(descriptions, layout.isRGB ? 1 : 0, width, height, base, pool)
                        if status != 0 { buffer.initialize(repeating: 0) }
                    }
                }
            }
        }
        guard status == 0 else {
            throw MediaIOError(source: source, reason: .corrupt("out of memory while converting \(width)x\(height) samples"))
        }
        return PixelBuffer(unchecked: width, height: height, format: .rgb8, bytesPerRow: width * 3, bytes: out)
    }

    private static func decodeWithLibjpeg(
        _ reader: UnsafeMutablePointer<vt_jpeg_reader>, components: Int, width: Int, height: Int, source: String
    ) throws -> PixelBuffer {
        let space: J_COLOR_SPACE
        let channels: Int
        switch components {
        case 1: (space, channels) = (JCS_GRAYSCALE, 1)
        case 4: (space, channels) = (JCS_CMYK, 4)
        default: (space, channels) = (JCS_RGB, 3)
        }
        if vt_jpeg_start_decompress(reader, space) != 0 { throw failure(reader, source: source, fatal: true) }
        guard Int(reader.pointee.info.output_width) == width, Int(reader.pointee.info.output_height) == height,
              Int(reader.pointee.info.output_components) == channels
        else {
            throw MediaIOError(source: source, reason: .unsupportedFormat("unexpected JPEG output layout"))
        }
        var row = [UInt8](repeating: 0, count: width * channels)
        let outChannels = channels == 1 ? 1 : 3
        var out = [UInt8](repeating: 0, count: width * height * outChannels)
        for y in 0..<height {
            if vt_jpeg_read_scanline(reader, &row) != 0 { throw failure(reader, source: source, fatal: true) }
            out.withUnsafeMutableBufferPointer { dst in
                guard let d = dst.baseAddress else { return }
                let line = d + y * width * outChannels
                row.withUnsafeBufferPointer { r in
                    guard let s = r.baseAddress else { return }
                    if channels == 4 {
                        ck_jpeg_cmyk_to_rgb_row(s, width, line)
                    } else {
                        line.update(from: s, count: width * channels)
                    }
                }
            }
        }
        try checkDamage(reader, source: source)
        return PixelBuffer(
            unchecked: width, height: height, format: outChannels == 1 ? .gray8 : .rgb8,
            bytesPerRow: width * outChannels, bytes: out)
    }

    private static func checkDamage(_ reader: UnsafeMutablePointer<vt_jpeg_reader>, source: String) throws {
        let code = reader.pointee.errors.damageCode
        guard code != 0 else { return }
        let message = cString(&reader.pointee.errors.damage)
        if vt_jpeg_is_truncation(code) != 0 {
            throw MediaIOError(source: source, reason: .truncated(message))
        }
        throw MediaIOError(source: source, reason: .corrupt(message))
    }

    private static func failure(_ reader: UnsafeMutablePointer<vt_jpeg_reader>, source: String, fatal: Bool) -> MediaIOError {
        let message = cString(&reader.pointee.errors.message)
        if reader.pointee.errors.scanLimit != 0 {
            return MediaIOError(source: source, reason: .unsupportedFormat("the JPEG has \(message)"))
        }
        // Valid JPEGs that libjpeg does not decode (12-bit samples, lossless and hierarchical
        // processes, arithmetic coding in some builds) are unsupported, not corrupt.
        if message.contains("Not a JPEG file") || message.hasPrefix("Unsupported") || message.contains("not supported") {
            return MediaIOError(source: source, reason: .unsupportedFormat(message))
        }
        if message.contains("Empty input") {
            return MediaIOError(source: source, reason: .empty)
        }
        if reader.pointee.errors.damageCode != 0, vt_jpeg_is_truncation(reader.pointee.errors.damageCode) != 0 {
            return MediaIOError(source: source, reason: .truncated(message))
        }
        return MediaIOError(source: source, reason: .corrupt(message.isEmpty ? "libjpeg failed" : message))
    }
}

/// A Swift string from a fixed-size C character array (imported as a tuple).
func cString<T>(_ tuple: UnsafeMutablePointer<T>) -> String {
    let size = MemoryLayout<T>.size
    return UnsafeRawPointer(tuple).withMemoryRebound(to: UInt8.self, capacity: size) { p in
        var n = 0
        while n < size, p[n] != 0 { n += 1 }
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }
}
