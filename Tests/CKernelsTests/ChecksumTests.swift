import CKernels
import XCTest

final class ChecksumTests: XCTestCase {
    /// The byte-at-a-time definition of zip's CRC-32.
    func reference(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xffff_ffff
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xedb8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    func testKnownValueAndChunkedStreamsMatchTheDefinition() {
        XCTAssertEqual(ck_crc32_update(0, Array("123456789".utf8), 9), 0xcbf4_3926)
        XCTAssertEqual(ck_crc32_update(0, nil, 0), 0)
        var g = SeededGenerator(seed: 32)
        for length in [1, 7, 8, 9, 63, 64, 1000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &g) }
            XCTAssertEqual(ck_crc32_update(0, bytes, bytes.count), reference(bytes), "length \(length)")
            // Streamed in uneven chunks, as archive members are.
            var crc: UInt32 = 0
            var start = 0
            while start < length {
                let end = min(length, start + 1 + start % 5)
                crc = bytes[start..<end].withUnsafeBytes { ck_crc32_update(crc, $0.baseAddress, $0.count) }
                start = end
            }
            XCTAssertEqual(crc, reference(bytes), "chunked, length \(length)")
        }
    }
}
