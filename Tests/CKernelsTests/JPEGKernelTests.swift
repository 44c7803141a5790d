import CKernels
import XCTest

/// The JPEG reconstruction kernels: the explicit AVX2 inverse DCT (with its shortcut for blocks
/// without AC terms) against the portable one, bit for bit, on ordinary, extreme (wrapping) and
/// DC-only blocks; and the one-call plane conversion against the row kernels it stands for.
final class JPEGKernelTests: XCTestCase {
    override func tearDown() {
        XCTAssertEqual(ck_set_isa(ck_detected_isa()), 1)
        super.tearDown()
    }

    func testInverseDCTMatchesPortableAtEveryLevel() throws {
        var g = SeededGenerator(seed: 700)
        for trial in 0..<400 {
            let blocks = 3
            var coefficients = [Int16](repeating: 0, count: 64 * blocks)
            var quant = [UInt16](repeating: 1, count: 64)
            let mode = trial % 4
            for i in coefficients.indices {
                switch mode {
                case 0: coefficients[i] = Int16.random(in: .min ... .max, using: &g) // wraps in 32 bits
                case 1: coefficients[i] = Int16.random(in: -1024...1023, using: &g)
                case 2: coefficients[i] = i % 64 == 0 ? Int16.random(in: .min ... .max, using: &g) : 0 // DC only
                default: coefficients[i] = Int.random(in: 0..<5, using: &g) == 0 ? Int16.random(in: -100...100, using: &g) : 0
                }
            }
            for i in quant.indices { quant[i] = mode == 0 ? UInt16.random(in: 0 ... .max, using: &g) : UInt16.random(in: 1...100, using: &g) }
            let (portable, levels) = try portableAndEachSIMD { () -> [UInt8] in
                var out = [UInt8](repeating: 0, count: 8 * 8 * blocks)
                ck_jpeg_idct_blocks(coefficients, blocks, quant, &out, 8 * blocks)
                return out
            }
            for simd in levels { XCTAssertEqual(simd.result, portable, "\(simd.level) inverse DCT, trial \(trial) (mode \(mode))") }
        }
    }

    /// ck_jpeg_planes_to_rgb against ck_jpeg_upsample_row + ck_jpeg_ycbcr_to_rgb_row (or
    /// ck_jpeg_interleave_rgb_row) row by row, for 4:2:0, 4:2:2, 4:4:0, 4:4:4 and RGB files with
    /// odd sizes.
    func testPlaneConversionEqualsTheRowKernels() throws {
        var g = SeededGenerator(seed: 701)
        for (width, height, h, v, rgb) in [(37, 23, 2, 2, false), (40, 9, 2, 1, false), (17, 30, 1, 2, false), (13, 7, 1, 1, false),
                                           (1, 1, 2, 2, false), (21, 11, 1, 1, true)] {
            // Component 0 at full resolution, 1 and 2 subsampled by (h, v).
            let hs = [1, h, h], vs = [1, v, v]
            let lowWidth = (0..<3).map { (width + hs[$0] - 1) / hs[$0] }, lowHeight = (0..<3).map { (height + vs[$0] - 1) / vs[$0] }
            let strides = lowWidth.map { ($0 + 7) / 8 * 8 }
            let planes = (0..<3).map { c in (0..<(strides[c] * lowHeight[c])).map { _ in UInt8.random(in: 0...255, using: &g) } }
            var expected = [UInt8](repeating: 0, count: width * height * 3)
            for y in 0..<height {
                var rows: [[UInt8]] = []
                for c in 0..<3 {
                    let near: Int, far: Int
                    if vs[c] == 2 {
                        near = y / 2
                        far = y % 2 == 0 ? max(near - 1, 0) : min(near + 1, lowHeight[c] - 1)
                    } else {
                        near = min(y / vs[c], lowHeight[c] - 1)
                        far = near
                    }
                    var row = [UInt8](repeating: 0, count: lowWidth[c] * hs[c] + 8)
                    planes[c].withUnsafeBufferPointer { p in
                        ck_jpeg_upsample_row(p.baseAddress! + near * strides[c], p.baseAddress! + far * strides[c], lowWidth[c],
                                             Int32(hs[c]), Int32(vs[c]), &row)
                    }
                    rows.append(row)
                }
                expected.withUnsafeMutableBufferPointer { out in
                    if rgb {
                        ck_jpeg_interleave_rgb_row(rows[0], rows[1], rows[2], width, out.baseAddress! + y * width * 3)
                    } else {
                        ck_jpeg_ycbcr_to_rgb_row(rows[0], rows[1], rows[2], width, out.baseAddress! + y * width * 3)
                    }
                }
            }
            var actual = [UInt8](repeating: 7, count: width * height * 3 + 1)
            let status = planes[0].withUnsafeBufferPointer { p0 in
                planes[1].withUnsafeBufferPointer { p1 in
                    planes[2].withUnsafeBufferPointer { p2 in
                        let pointers = [p0.baseAddress, p1.baseAddress, p2.baseAddress]
                        let descriptions = (0..<3).map {
                            ck_jpeg_plane(samples: pointers[$0], stride: strides[$0], low_width: lowWidth[$0], low_height: lowHeight[$0],
                                          h: Int32(hs[$0]), v: Int32(vs[$0]))
                        }
                        return ck_jpeg_planes_to_rgb(descriptions, rgb ? 1 : 0, width, height, &actual)
                    }
                }
            }
            XCTAssertEqual(status, 0)
            XCTAssertEqual(actual.last, 7, "wrote past the image, \(width)x\(height) h\(h) v\(v)")
            XCTAssertEqual(Array(actual.dropLast()), expected, "\(width)x\(height) h\(h) v\(v) rgb \(rgb)")
        }
    }
}
