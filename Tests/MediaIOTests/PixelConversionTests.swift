import CKernels
import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

final class PixelConversionTests: XCTestCase {
    private func photo() throws -> PixelBuffer {
        try ImageDecoder.decode(contentsOfFile: try SharedTestData.file("media/hand_victory_right_01.jpg").path).pixels
    }

    func testBGRAAndRGBAAndGrayConvertToTheSameRGB() throws {
        let rgb = try photo()
        var bgra = [UInt8](), rgba = [UInt8]()
        for i in 0..<(rgb.width * rgb.height) {
            let r = rgb.bytes[3 * i], g = rgb.bytes[3 * i + 1], b = rgb.bytes[3 * i + 2]
            bgra += [b, g, r, 255]
            rgba += [r, g, b, 0x80]
        }
        let fromBGRA = try PixelBuffer(width: rgb.width, height: rgb.height, format: .bgra8, bytes: bgra)
        let fromRGBA = try PixelBuffer(width: rgb.width, height: rgb.height, format: .rgba8, bytes: rgba)
        for isa in [CK_ISA_PORTABLE, ck_detected_isa()] {
            XCTAssertEqual(ck_set_isa(isa), 1)
            XCTAssertEqual(fromBGRA.convertedToRGB8(), rgb)
            XCTAssertEqual(fromRGBA.convertedToRGB8(), rgb)
        }
        let gray = try PixelBuffer(width: 3, height: 1, format: .gray8, bytes: [0, 128, 255])
        XCTAssertEqual(gray.convertedToRGB8().bytes, [0, 0, 0, 128, 128, 128, 255, 255, 255])
    }

    /// NV12 made from a photo with BT.601 (full and video range), converted back: close to
    /// the photo (chroma is shared by 2x2 pixels, so edges differ); flat colours exact to +-1.
    func testNV12ConvertsBackToRGB() throws {
        let rgb = try photo()
        for videoRange in [false, true] {
            let nv12 = Self.nv12(from: rgb, videoRange: videoRange, stridePadding: 6)
            for isa in [CK_ISA_PORTABLE, ck_detected_isa()] {
                XCTAssertEqual(ck_set_isa(isa), 1)
                let back = nv12.convertedToRGB8()
                let diff = TestImages.difference(back, rgb)
                XCTAssertLessThan(diff.mean, 3.0, "videoRange \(videoRange)")
            }
        }
        // Flat colours survive exactly (within rounding).
        for colour: [UInt8] in [[255, 0, 0], [0, 255, 0], [0, 0, 255], [128, 128, 128], [250, 200, 10]] {
            let flat = try PixelBuffer(width: 4, height: 4, format: .rgb8, bytes: Array((0..<16).map { _ in colour }.joined()))
            for videoRange in [false, true] {
                let back = Self.nv12(from: flat, videoRange: videoRange, stridePadding: 0).convertedToRGB8()
                XCTAssertLessThanOrEqual(TestImages.difference(back, flat).max, 2, "\(colour) videoRange \(videoRange)")
            }
        }
    }

    /// BT.601 RGB -> NV12 (the test's own reference conversion), chroma averaged over 2x2.
    static func nv12(from rgb: PixelBuffer, videoRange: Bool, stridePadding: Int) -> PixelBuffer {
        let w = rgb.width, h = rgb.height
        let yStride = w + stridePadding, cStride = 2 * ((w + 1) / 2) + stridePadding
        var bytes = [UInt8](repeating: 0, count: yStride * h + cStride * ((h + 1) / 2))
        func px(_ x: Int, _ y: Int) -> (Double, Double, Double) {
            let i = y * rgb.bytesPerRow + 3 * x
            return (Double(rgb.bytes[i]), Double(rgb.bytes[i + 1]), Double(rgb.bytes[i + 2]))
        }
        func clamp(_ v: Double) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
        for y in 0..<h {
            for x in 0..<w {
                let (r, g, b) = px(x, y)
                let luma = 0.299 * r + 0.587 * g + 0.114 * b
                bytes[y * yStride + x] = clamp(videoRange ? 16 + luma * 219 / 255 : luma)
            }
        }
        for cy in 0..<((h + 1) / 2) {
            for cx in 0..<((w + 1) / 2) {
                var cb = 0.0, cr = 0.0, n = 0.0
                for dy in 0..<2 {
                    for dx in 0..<2 where 2 * cx + dx < w && 2 * cy + dy < h {
                        let (r, g, b) = px(2 * cx + dx, 2 * cy + dy)
                        let luma = 0.299 * r + 0.587 * g + 0.114 * b
                        cb += (b - luma) / 1.772
                        cr += (r - luma) / 1.402
                        n += 1
                    }
                }
                let scale = videoRange ? 224.0 / 255 : 1
                let at = yStride * h + cy * cStride + 2 * cx
                bytes[at] = clamp(128 + cb / n * scale)
                bytes[at + 1] = clamp(128 + cr / n * scale)
            }
        }
        return try! PixelBuffer( // swiftlint:disable:this force_try
            width: w, height: h, format: videoRange ? .nv12VideoRange : .nv12FullRange,
            bytesPerRow: yStride, chromaBytesPerRow: cStride, bytes: bytes)
    }
}
