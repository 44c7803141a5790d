import CPNG
import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// Unreadable, truncated, corrupt, empty, non-image and oversized input: typed errors, no crash.
final class BadImageTests: XCTestCase {
    /// Why MediaIO refused the input (a file, encoded bytes); nil when `body` throws nothing.
    private func reason(_ body: () throws -> Any) -> MediaIOError.Reason? {
        failure(MediaIOError.self, body)?.reason
    }

    /// Why VisionTasks refused pixels in memory; nil when `body` throws nothing.
    private func pixelReason(_ body: () throws -> Any) -> MediaError.Reason? {
        failure(MediaError.self, body)?.reason
    }

    private func failure<Failure: Error & CustomStringConvertible>(_: Failure.Type, _ body: () throws -> Any) -> Failure? {
        do {
            _ = try body()
            return nil
        } catch let error as Failure {
            XCTAssertFalse(error.description.isEmpty)
            return error
        } catch {
            XCTFail("not a \(Failure.self): \(error)")
            return nil
        }
    }

    func testMissingFileEmptyAndNonImage() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mediaio-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("missing.jpg").path
        XCTAssertEqual(reason { try ImageDecoder.decode(contentsOfFile: missing) }, .fileNotFound)
        let empty = dir.appendingPathComponent("empty.png")
        try Data().write(to: empty)
        XCTAssertEqual(reason { try ImageDecoder.decode(contentsOfFile: empty.path) }, .empty)
        let text = dir.appendingPathComponent("notes.jpg")
        try Data("hello, not an image".utf8).write(to: text)
        guard case .unsupportedFormat = reason({ try ImageDecoder.decode(contentsOfFile: text.path) }) else {
            return XCTFail("text file accepted as an image")
        }
        guard case .unreadable = reason({ try ImageDecoder.decode(contentsOfFile: dir.path) }) else {
            return XCTFail("directory accepted as an image")
        }
        do {
            _ = try ImageDecoder.decode(contentsOfFile: missing)
        } catch let error as MediaIOError {
            XCTAssertTrue(error.description.contains("missing.jpg"), error.description)
        }
    }

    /// 12-bit and lossless JPEGs are valid files libjpeg does not decode: "unsupported", not
    /// "corrupt". Made from an 8-bit baseline JPEG by changing its frame header.
    func testTwelveBitAndLosslessJPEGsAreUnsupportedNotCorrupt() throws {
        let pixels = try PixelBuffer(width: 16, height: 8, format: .rgb8, bytes: [UInt8](repeating: 128, count: 16 * 8 * 3))
        let baseline = try ImageEncoder.jpeg(pixels)
        let sof = try XCTUnwrap((0..<baseline.count - 1).first { baseline[$0] == 0xFF && baseline[$0 + 1] == 0xC0 })
        var twelveBit = baseline
        twelveBit[sof + 1] = 0xC1 // extended sequential
        twelveBit[sof + 4] = 12 // sample precision
        var lossless = baseline
        lossless[sof + 1] = 0xC3
        for (name, bytes) in [("12-bit", twelveBit), ("lossless", lossless)] {
            let found = reason { try ImageDecoder.decode(Data(bytes), source: name) }
            guard case .unsupportedFormat(let detail) = found else { return XCTFail("\(name): \(String(describing: found))") }
            XCTAssertTrue(detail.contains("Unsupported JPEG"), detail)
        }
    }

    func testTruncatedJPEGAndPNG() throws {
        for name in ["media/neg_banana.jpg", "media/pose_fullbody_yoga_warrior.jpg", "media/hand_closed_fist_01_frame_from_asl_video.png"] {
            let bytes = [UInt8](try Data(contentsOf: try SharedTestData.file(name)))
            for fraction in [0.02, 0.5, 0.9] {
                let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
                let result = reason { try ImageDecoder.decode(cut, source: name) }
                switch result {
                case .truncated, .corrupt: break
                default: XCTFail("\(name) cut to \(fraction): \(String(describing: result))")
                }
            }
        }
    }

    func testFlippedBytesGiveErrorsOrPicturesButNeverCrash() throws {
        let bytes = [UInt8](try Data(contentsOf: try SharedTestData.file("media/hand_victory_right_01.jpg")))
        // Damaging the headers (quantisation/Huffman tables, frame header) must be an error.
        var header = bytes
        if let sof = (2..<(bytes.count - 1)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC4 }) {
            for i in (sof + 4)..<(sof + 40) { header[i] ^= 0xFF }
        }
        XCTAssertNotNil(reason { try ImageDecoder.decode(header) })
        // Damage spread over the entropy-coded data: decoders may or may not notice; either way a
        // typed error or a picture of the right size, never a crash.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            var damaged = bytes
            for _ in 0..<8 {
                let at = Int.random(in: 600..<(bytes.count - 2), using: &generator)
                damaged[at] ^= UInt8.random(in: 1...255, using: &generator)
            }
            do {
                let image = try ImageDecoder.decode(damaged)
                XCTAssertEqual(image.pixels.width, 418)
            } catch is MediaIOError {
            }
        }
        let png = [UInt8](try Data(contentsOf: try SharedTestData.file("media/hand_closed_fist_01_frame_from_asl_video.png")))
        var damagedPNG = png
        for i in stride(from: 100, to: png.count - 100, by: 997) { damagedPNG[i] ^= 0x5A }
        guard case .corrupt = reason({ try ImageDecoder.decode(damagedPNG) }) else {
            return XCTFail("PNG with damaged chunks (CRC mismatch) accepted")
        }
    }

    func testHugeDeclaredDimensionsAreRefusedBeforeAllocating() throws {
        // JPEG: patch the frame header to 60000 x 60000.
        var jpeg = [UInt8](try Data(contentsOf: try SharedTestData.file("media/neg_banana.jpg")))
        guard let sof = (2..<(jpeg.count - 1)).first(where: { jpeg[$0] == 0xFF && (jpeg[$0 + 1] == 0xC0 || jpeg[$0 + 1] == 0xC2) })
        else { return XCTFail("no SOF marker") }
        jpeg[sof + 5] = 0xEA; jpeg[sof + 6] = 0x60 // height 60000
        jpeg[sof + 7] = 0xEA; jpeg[sof + 8] = 0x60 // width 60000
        XCTAssertEqual(reason { try ImageDecoder.decode(jpeg) }, .image(.tooLarge(width: 60000, height: 60000)))

        // PNG: patch IHDR to 100000 x 10 (over 65535 a side) with a valid CRC.
        var png = [UInt8](try ImageEncoder.png(TestImages.pattern(width: 8, height: 8)))
        let width: UInt32 = 100_000, height: UInt32 = 10
        for i in 0..<4 {
            png[16 + i] = UInt8((width >> (24 - 8 * UInt32(i))) & 0xFF)
            png[20 + i] = UInt8((height >> (24 - 8 * UInt32(i))) & 0xFF)
        }
        let crc = TestImages.crc32(png[12..<29])
        for i in 0..<4 { png[29 + i] = UInt8((crc >> (24 - 8 * UInt32(i))) & 0xFF) }
        XCTAssertEqual(reason { try ImageDecoder.decode(png) }, .image(.tooLarge(width: 100_000, height: 10)))

        XCTAssertEqual(
            pixelReason { try PixelBuffer(width: 70_000, height: 2, format: .rgb8, bytes: []) },
            .tooLarge(width: 70_000, height: 2))
    }

    /// A PNG declaring more than a million rows (or columns) is too large, as one over 65 535 a
    /// side is, not "corrupt: Invalid IHDR data" (libpng's own limit, which the decoder lifts
    /// so that its size check says what is wrong).
    func testAPNGOfOverAMillionRowsIsTooLargeNotCorrupt() throws {
        for (width, height): (UInt32, UInt32) in [(1, 1_000_001), (2_000_000, 1), (1, 0x7FFF_FFFF)] {
            var png = [UInt8](try ImageEncoder.png(TestImages.pattern(width: 8, height: 8)))
            for i in 0..<4 {
                png[16 + i] = UInt8((width >> (24 - 8 * UInt32(i))) & 0xFF)
                png[20 + i] = UInt8((height >> (24 - 8 * UInt32(i))) & 0xFF)
            }
            let crc = TestImages.crc32(png[12..<29])
            for i in 0..<4 { png[29 + i] = UInt8((crc >> (24 - 8 * UInt32(i))) & 0xFF) }
            XCTAssertEqual(reason { try ImageDecoder.decode(png) }, .image(.tooLarge(width: Int(width), height: Int(height))), "\(width)x\(height)")
        }
    }

    /// Decompression bombs (docs/fuzzing.md, defect 2): a 74-byte PNG declaring 16384x16384 RGBA
    /// would make the decoder allocate 1 GiB for the pixels before libpng finds the data missing,
    /// and an 834-byte JPEG declaring 16384x16384 would make libjpeg allocate 512 MiB of
    /// coefficients. Both sizes are within `ImageLimits`; what is wrong is that no file that
    /// small can encode that many pixels, so they are refused before any pixel memory.
    func testDeclaredPixelsBeyondWhatTheFileCanEncodeAreRefusedBeforeAllocating() throws {
        let chunk = TestImages.pngChunk
        // IHDR 16384 x 16384, 8-bit RGBA; one IDAT of zlib's stored empty block; IEND.
        let ihdr: [UInt8] = [0, 0, 0x40, 0, 0, 0, 0x40, 0, 8, 6, 0, 0, 0]
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
            + chunk("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
        guard case .corrupt(let pngMessage) = reason({ try ImageDecoder.decode(png) }) else {
            return XCTFail("a \(png.count)-byte PNG declaring 16384x16384 pixels was not refused as corrupt")
        }
        XCTAssertTrue(pngMessage.contains("16384x16384"), pngMessage)

        var jpeg = try ImageEncoder.jpeg(TestImages.pattern(width: 17, height: 9))
        guard let sof = (2..<(jpeg.count - 1)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }) else {
            return XCTFail("no SOF0 marker")
        }
        jpeg[sof + 5] = 0x40; jpeg[sof + 6] = 0 // height 16384
        jpeg[sof + 7] = 0x40; jpeg[sof + 8] = 0 // width 16384
        guard case .corrupt(let jpegMessage) = reason({ try ImageDecoder.decode(jpeg) }) else {
            return XCTFail("a \(jpeg.count)-byte JPEG declaring 16384x16384 pixels was not refused as corrupt")
        }
        XCTAssertTrue(jpegMessage.contains("16384x16384"), jpegMessage)
    }

    /// A PNG whose text chunk declares 1 685 021 284 bytes (found by `scripts/fuzz image`;
    /// docs/fuzzing.md, defect 6) would make libpng allocate them before reading any, as libpng
    /// 1.6 only warns that a chunk is over its 8 MB limit. The decoder skips every ancillary
    /// chunk but tRNS unread, and libpng's allocations go through an allocator that refuses more
    /// than 16 MB at once.
    func testAChunkDeclaringGigabytesIsNeitherAllocatedNorRead() throws {
        let png = try ImageEncoder.png(TestImages.pattern(width: 8, height: 8))
        let bomb = FuzzReproducers.pngWithChunkDeclaringGigabytes(png)
        let result = reason { try ImageDecoder.decode(bomb) }
        XCTAssertTrue(result == .truncated("data ends before the image does (truncated file)"), String(describing: result))
        let largest = bomb.withUnsafeBufferPointer { bytes -> Int in
            var image = vt_png_image()
            defer { vt_png_free(&image) }
            _ = vt_png_decode(bytes.baseAddress, bytes.count, UInt32(ImageLimits.maxSide), UInt64(ImageLimits.maxPixels), &image)
            return image.largest_request
        }
        XCTAssertLessThan(largest, 1 << 20, "libpng asked for \(largest) bytes")

        // The skipped chunks with real contents, before and after the pixels: the same picture.
        let chunk = TestImages.pngChunk
        let ancillary = chunk("gAMA", [0, 0, 0xB1, 0x8F]) + chunk("sRGB", [0]) + chunk("pHYs", [0, 0, 0x0B, 0x13, 0, 0, 0x0B, 0x13, 1])
            + chunk("tEXt", Array("Comment\u{0}made by a test".utf8)) + chunk("iTXt", Array("Title\u{0}\u{0}\u{0}en\u{0}\u{0}hands".utf8))
            + chunk("sBIT", [5, 6, 5]) + chunk("eXIf", [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 0])
        let withChunks = Array(png[..<33]) + ancillary + Array(png[33..<(png.count - 12)]) + chunk("tIME", [7, 234, 11, 25, 12, 0, 0])
            + Array(png[(png.count - 12)...])
        let plain = try ImageDecoder.decode(png).pixels, annotated = try ImageDecoder.decode(withChunks).pixels
        XCTAssertEqual(annotated.width, plain.width)
        XCTAssertEqual(annotated.format, plain.format)
        XCTAssertEqual(annotated.bytes, plain.bytes)
    }

    /// A caller's pixel limit (`decode(_:source:maxPixels:)`, the server's `--max-image-pixels`)
    /// is applied by the decoders to the dimensions they parsed themselves, so no header scan
    /// can be fooled around it (docs/fuzzing.md, defect 4: stray bytes before a JPEG's frame
    /// header, which libjpeg skips and a header scan stops at).
    func testACallersPixelLimitIsAppliedToTheDimensionsTheDecoderParsed() throws {
        let image = TestImages.pattern(width: 40, height: 30)
        let stray = try FuzzReproducers.jpegWithStrayBytesBeforeFrameHeader(width: 40, height: 30)
        for bytes in [try ImageEncoder.jpeg(image), try ImageEncoder.png(image), stray] {
            XCTAssertEqual(reason { try ImageDecoder.decode(bytes, maxPixels: 40 * 30 - 1) }, .image(.tooLarge(width: 40, height: 30)))
            let decoded = try ImageDecoder.decode(bytes, maxPixels: 40 * 30).pixels
            XCTAssertEqual([decoded.width, decoded.height], [40, 30])
        }
        let message = MediaIOError(source: "a.jpg", reason: .image(.tooLarge(width: 40, height: 30))).description
        XCTAssertEqual(message, "a.jpg: declares 40x30 = 1200 pixels, more than this caller allows")
    }

    func testRawPixelBuffersTooShortAreRefused() {
        guard case .invalidArgument = pixelReason({ try PixelBuffer(width: 4, height: 4, format: .rgba8, bytes: [UInt8](repeating: 0, count: 63)) })
        else { return XCTFail("short buffer accepted") }
        guard case .invalidArgument = pixelReason({ try PixelBuffer(width: 4, height: 4, format: .rgb8, bytesPerRow: 11, bytes: [UInt8](repeating: 0, count: 64)) })
        else { return XCTFail("short stride accepted") }
        guard case .invalidArgument = pixelReason({ try PixelBuffer(width: 4, height: 4, format: .nv12FullRange, bytes: [UInt8](repeating: 0, count: 16 + 7)) })
        else { return XCTFail("short NV12 accepted") }
    }
}
