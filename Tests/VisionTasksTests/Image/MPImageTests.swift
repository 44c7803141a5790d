import Foundation
import MediaIO
import TestSupport
@_spi(Apps) @testable import VisionTasks
import XCTest

final class MPImageTests: XCTestCase {
    private func rgbPixels(_ width: Int, _ height: Int) -> [UInt8] {
        var out: [UInt8] = []
        for i in 0..<(width * height) {
            out.append(UInt8(i % 251))
            out.append(UInt8((i / 7) % 253))
            out.append(UInt8((i * 3) % 255))
        }
        return out
    }

    func testFileImageIsDecodedUpright() throws {
        let url = try SharedTestData.file("media/hand_thumb_up_03_samples.jpg")
        let image = try MPImage(contentsOfFile: url.path)
        XCTAssertEqual(image.width, 640)
        XCTAssertEqual(image.height, 427)
        XCTAssertEqual(image.orientation, .up)
        let upright = try image.uprightRGB()
        XCTAssertEqual(upright.format, .rgb8)
        XCTAssertEqual(upright.bytes, image.pixelBuffer.bytes, "RGB8 + .up is passed through")
        XCTAssertEqual(try MPImage(data: Data(contentsOf: url)).pixelBuffer, image.pixelBuffer)
        XCTAssertThrowsError(try MPImage(contentsOfFile: url.path + ".missing")) {
            XCTAssertEqual(($0 as? MediaIOError)?.reason, .fileNotFound)
        }
    }

    /// Rotating a photo by EXIF (at load) and by `orientation` gives the same upright pixels.
    func testEXIFAndOrientationAgree() throws {
        let url = try SharedTestData.file("media/hand_victory_right_01.jpg")
        let bytes = [UInt8](try Data(contentsOf: url))
        let pairs: [(Int, ImageOrientation)] = [(6, .right), (8, .left), (3, .down)]
        for (exif, orientation) in pairs {
            var tagged = Array(bytes[0..<2])
            // APP1 with a little-endian TIFF IFD holding only Orientation.
            let tiff: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(exif), 0, 0, 0, 0, 0, 0, 0]
            let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
            tagged += [0xFF, 0xE1, 0, UInt8(payload.count + 2)] + payload + bytes[2...]
            let byEXIF = try MPImage(data: Data(tagged))
            let byOrientation = try MPImage(contentsOfFile: url.path, orientation: orientation)
            XCTAssertEqual(byEXIF.width, byOrientation.width)
            XCTAssertEqual(byEXIF.height, byOrientation.height)
            XCTAssertEqual(try byEXIF.uprightRGB(), try byOrientation.uprightRGB(), "\(orientation)")
        }
    }

    func testRawPixelFormatsGiveTheSameUprightRGB() throws {
        let w = 9, h = 5
        let rgb = rgbPixels(w, h)
        let reference = try MPImage(pixels: Data(rgb), width: w, height: h, format: .rgb8).uprightRGB()
        var bgra = [UInt8](), padded = [UInt8]()
        for i in 0..<(w * h) { bgra += [rgb[3 * i + 2], rgb[3 * i + 1], rgb[3 * i], 255] }
        for y in 0..<h { padded += rgb[(y * w * 3)..<((y + 1) * w * 3)] + [0, 0, 0, 0, 0] }
        XCTAssertEqual(try MPImage(pixels: Data(bgra), width: w, height: h, format: .bgra8).uprightRGB().bytes, reference.bytes)
        // Any collection of bytes: an array, a slice, a raw buffer, as well as Data.
        XCTAssertEqual(try MPImage(pixels: bgra, width: w, height: h, format: .bgra8).uprightRGB().bytes, reference.bytes)
        XCTAssertEqual(try MPImage(pixels: rgb[...], width: w, height: h, format: .rgb8).uprightRGB(), reference)
        try rgb.withUnsafeBytes { raw in
            XCTAssertEqual(try MPImage(pixels: raw, width: w, height: h, format: .rgb8).uprightRGB(), reference)
        }
        XCTAssertEqual(
            try MPImage(pixels: Data(padded), width: w, height: h, bytesPerRow: w * 3 + 5, format: .rgb8).uprightRGB().packed(),
            reference)
        // Rotated: dimensions swap; .right puts the stored bottom-left pixel at the top-left.
        let right = try MPImage(pixels: Data(rgb), width: w, height: h, format: .rgb8, orientation: .right)
        XCTAssertEqual(right.width, h)
        XCTAssertEqual(right.height, w)
        XCTAssertEqual(try right.uprightRGB().pixel(x: 0, y: 0), reference.pixel(x: 0, y: h - 1))
    }

    func testNV12TwoPlaneInitialiser() throws {
        let w = 4, h = 2
        let y: [UInt8] = [16, 16, 235, 235, 16, 16, 235, 235]
        let cbcr: [UInt8] = [128, 128, 128, 128]
        let image = try y.withUnsafeBytes { yp in
            try cbcr.withUnsafeBytes { cp in
                try MPImage(yPlane: yp, yBytesPerRow: w, cbcrPlane: cp, cbcrBytesPerRow: w, width: w, height: h, videoRange: true)
            }
        }
        let rgb = try image.uprightRGB()
        XCTAssertEqual(Array(rgb.pixel(x: 0, y: 0)), [0, 0, 0])
        XCTAssertEqual(Array(rgb.pixel(x: 3, y: 1)), [255, 255, 255])
        XCTAssertThrowsError(try y.withUnsafeBytes { yp in
            try cbcr.withUnsafeBytes { cp in
                try MPImage(yPlane: yp, yBytesPerRow: w, cbcrPlane: cp, cbcrBytesPerRow: w, width: w, height: 4, videoRange: true)
            }
        })
    }

    /// Strides and sizes from the caller (a camera frame's header, a network message) throw
    /// rather than trap: a huge `bytesPerRow` would overflow `height * bytesPerRow`, a negative
    /// `cbcrBytesPerRow` would become a negative prefix length, and `Int.max` as a width would
    /// overflow the CbCr row size.
    func testHostileStridesAndSizesAreErrorsNotTraps() throws {
        let bytes = [UInt8](repeating: 0, count: 64)
        func assertInvalid(_ body: @autoclosure () throws -> Any, _ note: String, line: UInt = #line) {
            XCTAssertThrowsError(try body(), note, line: line) { error in
                XCTAssertNotNil(error as? MediaError, "\(note): \(error)", line: line)
            }
        }
        assertInvalid(try PixelBuffer(width: 2, height: 3, format: .rgb8, bytesPerRow: Int.max / 2, bytes: bytes), "huge stride")
        assertInvalid(try PixelBuffer(width: 2, height: 3, format: .rgb8, bytesPerRow: 5, bytes: bytes), "stride under a row")
        assertInvalid(
            try PixelBuffer(width: 2, height: 3, format: .nv12FullRange, bytesPerRow: 2, chromaBytesPerRow: Int.max, bytes: bytes),
            "huge CbCr stride")
        assertInvalid(try PixelBuffer(width: 0, height: 3, format: .rgb8, bytes: bytes), "zero width")
        assertInvalid(try MPImage(pixels: bytes, width: -4, height: 2, format: .gray8), "negative width")
        try bytes.withUnsafeBytes { plane in
            for (yStride, cStride, width, height) in [
                (Int.max, 2, 2, 2), (2, -8, 2, 2), (2, Int.max, 2, 3), (2, 2, Int.max, 2), (2, 2, 2, Int.min),
            ] {
                assertInvalid(
                    try MPImage(yPlane: plane, yBytesPerRow: yStride, cbcrPlane: plane, cbcrBytesPerRow: cStride,
                                width: width, height: height, videoRange: false),
                    "NV12 \(yStride) \(cStride) \(width)x\(height)")
            }
        }
    }

    func testMirroredOrientationsAreRefusedByTasks() throws {
        let pixels = Data(rgbPixels(3, 3))
        for orientation in ImageOrientation.allCases {
            let image = try MPImage(pixels: pixels, width: 3, height: 3, format: .rgb8, orientation: orientation)
            if orientation.isMirrored {
                XCTAssertThrowsError(try image.uprightRGB()) {
                    XCTAssertEqual($0 as? MPImageError, .unsupportedOrientation(orientation))
                }
            } else {
                XCTAssertNoThrow(try image.uprightRGB())
            }
        }
        XCTAssertThrowsError(try MPImage(pixels: Data(count: 10), width: 3, height: 3, format: .rgb8))
    }
}
