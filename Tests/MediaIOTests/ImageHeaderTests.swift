import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// `ImageHeader.dimensions(of:)`: the size a JPEG or PNG declares, read without decoding.
final class ImageHeaderTests: XCTestCase {
    /// Every shared still: the header's pixel count is the decoded image's (EXIF may swap sides).
    func testHeadersOfTheSharedStillsMatchTheirDecodedSize() throws {
        let stills = try TestImages.stillImages()
        XCTAssertGreaterThan(stills.count, 20)
        for url in stills {
            let data = try Data(contentsOf: url)
            let decoded = try ImageDecoder.decode(data).pixels
            guard let (width, height) = ImageHeader.dimensions(of: data) else {
                XCTFail("no header size for \(url.lastPathComponent)")
                continue
            }
            XCTAssertEqual(Set([width, height]), Set([decoded.width, decoded.height]), url.lastPathComponent)
        }
    }

    /// Bytes libjpeg skips between segments (stray bytes, fill bytes, a stuffed 0xFF 0x00) are
    /// skipped by the scan too, so it finds the size the decoder finds (a scan that returned nil
    /// on them would let such a file past the server's early size check; docs/fuzzing.md,
    /// defects 4 and 5).
    func testBytesBetweenSegmentsThatLibjpegSkipsAreSkipped() throws {
        let stray = try FuzzReproducers.jpegWithStrayBytesBeforeFrameHeader(width: 84, height: 60)
        XCTAssertEqual(ImageHeader.dimensions(of: Data(stray)).map { [$0.width, $0.height] }, [84, 60])
        let jpeg = try ImageEncoder.jpeg(TestImages.pattern(width: 33, height: 17))
        guard let sof = (2..<(jpeg.count - 1)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }) else {
            return XCTFail("no SOF0 marker")
        }
        // The second shape `scripts/fuzz http` found (defect 5 in docs/fuzzing.md): an APPn or
        // COM segment whose length field is under 2, which libjpeg reads as empty (and skips the
        // bytes after it as stray); the scan gave up on it. APP0 and COM with length 1 (each
        // followed by bytes that are then stray), and APP0 with length 0.
        let lengthOneAPP0: [UInt8] = [0xFF, 0xE0, 0x00, 0x01, 0x4A, 0x46, 0x49]
        let lengthOneComment: [UInt8] = [0xFF, 0xFE, 0x00, 0x01, 0x2F, 0x76, 0x31]
        let lengthZeroAPP0: [UInt8] = [0xFF, 0xE0, 0x00, 0x00]
        let junks: [[UInt8]] = [
            [0x00], [0xFF, 0x00], [0xFF, 0xFF, 0xFF], [0x12, 0xFF, 0x00, 0x34], lengthOneAPP0, lengthOneComment, lengthZeroAPP0,
        ]
        for junk in junks {
            let bytes = Data(jpeg[..<sof] + junk + jpeg[sof...])
            let decoded = try ImageDecoder.decode(bytes).pixels
            XCTAssertEqual([decoded.width, decoded.height], [33, 17], "\(junk)")
            XCTAssertEqual(ImageHeader.dimensions(of: bytes).map { [$0.width, $0.height] }, [33, 17], "\(junk)")
        }
    }

    /// Cut-off, damaged and foreign bytes give nil or a size, never a crash or a read past the end.
    func testTruncatedAndDamagedHeaders() throws {
        let jpeg = try Data(contentsOf: TestImages.stillImages().first { $0.pathExtension == "jpg" }!)
        for length in 0..<min(jpeg.count, 4096) {
            _ = ImageHeader.dimensions(of: jpeg.prefix(length))
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var bytes = [UInt8](jpeg.prefix(600))
            for _ in 0..<8 { bytes[Int.random(in: 2..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            _ = ImageHeader.dimensions(of: Data(bytes))
        }
        XCTAssertNil(ImageHeader.dimensions(of: Data("not an image".utf8)))
        XCTAssertNil(ImageHeader.dimensions(of: Data([0xFF, 0xD8, 0xFF])))
        // A PNG whose IHDR declares 70000 × 70000: the size is read, not refused (the caller's limits decide).
        var png = try ImageEncoder.png(PixelBuffer(width: 1, height: 1, format: .gray8, bytes: [0]))
        png.replaceSubrange(16..<24, with: [0, 1, 0x11, 0x70, 0, 1, 0x11, 0x70])
        XCTAssertEqual(ImageHeader.dimensions(of: Data(png)).map { [$0.width, $0.height] }, [70000, 70000])
    }
}
