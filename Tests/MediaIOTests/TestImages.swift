import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// Helpers shared by the MediaIO tests.
enum TestImages {
    /// Names of the still images in the shared media (JPEG and PNG).
    static func stillImages() throws -> [URL] {
        let media = try SharedTestData.file("media")
        let names = try FileManager.default.contentsOfDirectory(atPath: media.path).sorted()
        return names.filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.map { media.appendingPathComponent($0) }
    }

    /// Per-sample absolute difference statistics of two RGB8 images of equal size.
    static func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> (max: Int, mean: Double) {
        let pa = a.convertedToRGB8().packed(), pb = b.convertedToRGB8().packed()
        precondition(pa.width == pb.width && pa.height == pb.height)
        var maxDiff = 0
        var sum = 0
        for i in 0..<pa.bytes.count {
            let d = abs(Int(pa.bytes[i]) - Int(pb.bytes[i]))
            sum += d
            maxDiff = max(maxDiff, d)
        }
        return (maxDiff, Double(sum) / Double(max(pa.bytes.count, 1)))
    }

    /// A JPEG's bytes with an APP1 EXIF segment declaring `orientation` inserted after SOI.
    static func withEXIFOrientation(_ jpeg: [UInt8], _ orientation: Int, bigEndian: Bool = false) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += u16(42) + u32(8) // IFD0 at offset 8
        tiff += u16(2) // two entries: an unrelated tag, then Orientation
        tiff += u16(0x010F) + u16(2) + u32(4) + u32(0) // Make (ASCII), value ignored
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)
        tiff += u32(0)
        let payload: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0] + tiff
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
    }

    /// CRC-32 (PNG chunks).
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A PNG chunk: its length, type, data and CRC.
    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (24 - 8 * UInt32($0))) & 0xFF) } }
        let typeAndData = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typeAndData + bigEndian(crc32(typeAndData[...]))
    }

    /// A small synthetic RGB8 test pattern with smooth gradients and some edges.
    static func pattern(width: Int, height: Int) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                bytes[i] = UInt8((x * 255) / max(width - 1, 1))
                bytes[i + 1] = UInt8((y * 255) / max(height - 1, 1))
                bytes[i + 2] = (x / 8 + y / 8) % 2 == 0 ? 200 : 40
            }
        }
        return try! PixelBuffer(width: width, height: height, format: .rgb8, bytes: bytes) // swiftlint:disable:this force_try
    }
}
