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

    /// A whole component through ck_jpeg_idct_rows, on the calling thread and shared over 2 and
    /// 3 threads, against ck_jpeg_idct_blocks block row by block row, at every level: a
    /// component large enough to be shared, and one too small to be.
    func testComponentReconstructionEqualsTheBlockRowsOnAnyThreads() throws {
        var g = SeededGenerator(seed: 702)
        for (blocksWide, blocksHigh) in [(41, 37), (3, 2)] {
            let stride = 8 * blocksWide + 5
            let coefficients = (0..<(blocksHigh * blocksWide * 64)).map { _ in
                Int.random(in: 0..<3, using: &g) == 0 ? Int16.random(in: -600...600, using: &g) : 0
            }
            let quant = (0..<64).map { _ in UInt16.random(in: 1...60, using: &g) }
            for isa in [CK_ISA_PORTABLE, ck_detected_isa()] {
                XCTAssertEqual(ck_set_isa(isa), 1)
                var expected = [UInt8](repeating: 0xAA, count: 8 * blocksHigh * stride)
                coefficients.withUnsafeBufferPointer { c in
                    expected.withUnsafeMutableBufferPointer { out in
                        for row in 0..<blocksHigh {
                            ck_jpeg_idct_blocks(c.baseAddress! + row * blocksWide * 64, blocksWide, quant,
                                                out.baseAddress! + row * 8 * stride, stride)
                        }
                    }
                }
                for threads in [1, 2, 3] {
                    let pool = threads > 1 ? ck_threadpool_create(Int32(threads)) : nil
                    defer { ck_threadpool_destroy(pool) }
                    var actual = [UInt8](repeating: 0xAA, count: 8 * blocksHigh * stride)
                    coefficients.withUnsafeBufferPointer { c in
                        let rows: [UnsafePointer<Int16>?] = (0..<blocksHigh).map { c.baseAddress! + $0 * blocksWide * 64 }
                        ck_jpeg_idct_rows(rows, blocksHigh, blocksWide, quant, &actual, stride, pool)
                    }
                    XCTAssertEqual(actual, expected, "\(blocksWide)x\(blocksHigh) blocks, isa \(isa), \(threads) threads")
                }
            }
        }
    }

    /// Fuzz defect 1 (docs/fuzzing.md): quantisation steps of 32767 with a checkerboard of ±1
    /// coefficients overflowed 32-bit signed arithmetic in the IDCT's second pass (undefined
    /// behaviour; fixed by computing in `uint32_t`, which wraps). The reproducer's bytes are made
    /// here as `FuzzSeeds` makes the seed `regression-idct-overflow`, read as
    /// Fuzz/C/fuzz_jpeg_reconstruct.c reads them, and the block's output at every level is
    /// compared with `wrappingReferenceIDCT`, this test's own version of the arithmetic ck_jpeg.h
    /// documents.
    func testIDCTOverflowReproducerMatchesTheWrappingReferenceAtEveryLevel() throws {
        func le16(_ values: [Int]) -> [UInt8] { values.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] } }
        let checkerboard = (0..<64).map { ($0 / 8 + $0 % 8) % 2 == 0 ? 1 : -1 }
        let reproducer: [UInt8] = [0, 0, 0] + le16([Int](repeating: 0x7FFF, count: 64)) + le16(checkerboard)

        // The fuzz target's reading: op (byte % 6 == 0: the inverse DCT), block count - 1 (% 8),
        // extra stride (% 9), 64 little-endian quantisation steps, then the coefficients.
        XCTAssertEqual(reproducer.count, 3 + 2 * 64 + 2 * 64)
        XCTAssertEqual(reproducer[0] % 6, 0)
        let count = 1 + Int(reproducer[1] % 8), stride = 8 * count + Int(reproducer[2] % 9)
        func u16(at offset: Int) -> UInt16 { UInt16(reproducer[offset]) | UInt16(reproducer[offset + 1]) << 8 }
        let quant = (0..<64).map { u16(at: 3 + 2 * $0) }
        let coefficients = (0..<(64 * count)).map { Int16(bitPattern: u16(at: 3 + 128 + 2 * $0)) }
        XCTAssertEqual(count, 1)
        XCTAssertEqual(stride, 8)

        let reference = Self.wrappingReferenceIDCT(coefficients, quant: quant)
        // The block does overflow 32 bits (undefined behaviour in signed arithmetic), so the
        // comparison below is about the wrapping, not about ordinary sums.
        XCTAssertTrue(Self.idctOverflows32Bits(coefficients, quant: quant), "the reproducer no longer overflows: it tests nothing")
        // Not a uniform block either: the wrapped sums reach both clamps and values between.
        XCTAssertGreaterThan(Set(reference).count, 2, "\(reference)")

        let (portable, levels) = try portableAndEachSIMD { () -> [UInt8] in
            var out = [UInt8](repeating: 0xAA, count: 8 * stride)
            ck_jpeg_idct_blocks(coefficients, count, quant, &out, stride)
            return out
        }
        XCTAssertEqual(portable, reference, "portable inverse DCT on the overflow reproducer")
        for simd in levels {
            XCTAssertEqual(simd.result, reference, "\(simd.level) inverse DCT on the overflow reproducer")
        }

        // The reference is the documented transform, not one fitted to this block: it equals the
        // portable kernel on random blocks, ordinary and wrapping.
        var g = SeededGenerator(seed: 702)
        for trial in 0..<200 {
            let wraps = trial % 2 == 0
            let block = (0..<64).map { _ in wraps ? Int16.random(in: .min ... .max, using: &g) : Int16.random(in: -64...63, using: &g) }
            let steps = (0..<64).map { _ in wraps ? UInt16.random(in: 0 ... .max, using: &g) : UInt16.random(in: 1...32, using: &g) }
            var out = [UInt8](repeating: 0, count: 64)
            XCTAssertEqual(ck_set_isa(CK_ISA_PORTABLE), 1)
            ck_jpeg_idct_blocks(block, 1, steps, &out, 8)
            XCTAssertEqual(out, Self.wrappingReferenceIDCT(block, quant: steps), "random block \(trial)")
        }
    }

    /// The inverse DCT of one 8x8 block as ck_jpeg.h documents it, written out in Swift with
    /// wrapping 32-bit operators: coefficients dequantised and truncated to 16 bits; the islow
    /// 1-D transform with 12-bit constants `Int32(c * 4096 + 0.5)` over columns, then
    /// `(x + 2^9) >> 10`; over rows, then `(x + 2^16 + 128 << 17) >> 17` clamped to 0...255.
    /// Shifts are arithmetic on the wrapped value. Returns the 64 samples, row by row.
    static func wrappingReferenceIDCT(_ coefficients: [Int16], quant: [UInt16]) -> [UInt8] {
        let dequantised = (0..<64).map { Int32(Int16(truncatingIfNeeded: Int32(coefficients[$0]) * Int32(quant[$0]))) }
        var columnPass = [Int32](repeating: 0, count: 64)
        for column in 0..<8 {
            let outputs = islow1D((0..<8).map { dequantised[$0 * 8 + column] })
            for row in 0..<8 { columnPass[row * 8 + column] = (outputs[row] &+ 512) >> 10 }
        }
        var samples = [UInt8](repeating: 0, count: 64)
        for row in 0..<8 {
            let outputs = islow1D(Array(columnPass[(row * 8)..<(row * 8 + 8)]))
            for column in 0..<8 {
                let value = (outputs[column] &+ 65536 &+ (128 << 17)) >> 17
                samples[row * 8 + column] = UInt8(clamping: value)
            }
        }
        return samples
    }

    /// The islow (Loeffler-Ligtenberg-Moschytz) 1-D inverse DCT of 8 values, before descaling,
    /// with wrapping arithmetic.
    private static func islow1D(_ s: [Int32]) -> [Int32] {
        func k(_ c: Double) -> Int32 { Int32(c * 4096 + 0.5) } // rounded half up, truncated toward zero
        // Even part.
        let z = (s[2] &+ s[6]) &* k(0.541196100)
        let t2 = z &+ s[6] &* k(-1.847759065), t3 = z &+ s[2] &* k(0.765366865)
        let t0 = (s[0] &+ s[4]) &* 4096, t1 = (s[0] &- s[4]) &* 4096
        let x0 = t0 &+ t3, x3 = t0 &- t3, x1 = t1 &+ t2, x2 = t1 &- t2
        // Odd part.
        let p3 = s[7] &+ s[3], p4 = s[5] &+ s[1], p1 = s[7] &+ s[1], p2 = s[5] &+ s[3]
        let p5 = (p3 &+ p4) &* k(1.175875602)
        let q1 = p5 &+ p1 &* k(-0.899976223), q2 = p5 &+ p2 &* k(-2.562915447)
        let q3 = p3 &* k(-1.961570560), q4 = p4 &* k(-0.390180644)
        let o0 = s[7] &* k(0.298631336) &+ q1 &+ q3
        let o1 = s[5] &* k(2.053119869) &+ q2 &+ q4
        let o2 = s[3] &* k(3.072711026) &+ q2 &+ q3
        let o3 = s[1] &* k(1.501321110) &+ q1 &+ q4
        return [x0 &+ o3, x1 &+ o2, x2 &+ o1, x3 &+ o0, x3 &- o0, x2 &- o1, x1 &- o2, x0 &- o3]
    }

    /// Whether the same transform, done in 64 bits, leaves the 32-bit range anywhere (the case
    /// that was undefined behaviour in signed 32-bit C).
    static func idctOverflows32Bits(_ coefficients: [Int16], quant: [UInt16]) -> Bool {
        var overflowed = false
        func check(_ v: Int64) -> Int64 {
            if v < Int64(Int32.min) || v > Int64(Int32.max) { overflowed = true }
            return v
        }
        func pass(_ s: [Int64]) -> [Int64] {
            func k(_ c: Double) -> Int64 { Int64(Int32(c * 4096 + 0.5)) }
            let z = check(check(s[2] + s[6]) * k(0.541196100))
            let t2 = check(z + check(s[6] * k(-1.847759065))), t3 = check(z + check(s[2] * k(0.765366865)))
            let t0 = check(check(s[0] + s[4]) * 4096), t1 = check(check(s[0] - s[4]) * 4096)
            let x0 = check(t0 + t3), x3 = check(t0 - t3), x1 = check(t1 + t2), x2 = check(t1 - t2)
            let p3 = check(s[7] + s[3]), p4 = check(s[5] + s[1]), p1 = check(s[7] + s[1]), p2 = check(s[5] + s[3])
            let p5 = check(check(p3 + p4) * k(1.175875602))
            let q1 = check(p5 + check(p1 * k(-0.899976223))), q2 = check(p5 + check(p2 * k(-2.562915447)))
            let q3 = check(p3 * k(-1.961570560)), q4 = check(p4 * k(-0.390180644))
            let o0 = check(check(check(s[7] * k(0.298631336)) + q1) + q3)
            let o1 = check(check(check(s[5] * k(2.053119869)) + q2) + q4)
            let o2 = check(check(check(s[3] * k(3.072711026)) + q2) + q3)
            let o3 = check(check(check(s[1] * k(1.501321110)) + q1) + q4)
            return [x0 + o3, x1 + o2, x2 + o1, x3 + o0, x3 - o0, x2 - o1, x1 - o2, x0 - o3].map(check)
        }
        let dequantised = (0..<64).map { Int64(Int16(truncatingIfNeeded: Int32(coefficients[$0]) * Int32(quant[$0]))) }
        var columnPass = [Int64](repeating: 0, count: 64)
        for column in 0..<8 {
            let outputs = pass((0..<8).map { dequantised[$0 * 8 + column] })
            for row in 0..<8 { columnPass[row * 8 + column] = check(outputs[row] + 512) >> 10 }
        }
        for row in 0..<8 {
            for value in pass(Array(columnPass[(row * 8)..<(row * 8 + 8)])) { _ = check(value + 65536 + (128 << 17)) }
        }
        return overflowed
    }

    /// ck_jpeg_planes_to_rgb against ck_jpeg_upsample_row + ck_jpeg_ycbcr_to_rgb_row (or
    /// ck_jpeg_interleave_rgb_row) row by row, for 4:2:0, 4:2:2, 4:4:0, 4:4:4 and RGB files with
    /// odd sizes, on the calling thread and with the rows shared over 2 and 3 threads (the
    /// larger images: the small ones stay on the calling thread).
    func testPlaneConversionEqualsTheRowKernels() throws {
        var g = SeededGenerator(seed: 701)
        for (width, height, h, v, rgb) in [(37, 23, 2, 2, false), (40, 9, 2, 1, false), (17, 30, 1, 2, false), (13, 7, 1, 1, false),
                                           (1, 1, 2, 2, false), (21, 11, 1, 1, true), (301, 203, 2, 2, false),
                                           (259, 97, 2, 1, false), (173, 131, 1, 1, true)] {
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
            for threads in [1, 2, 3] {
                let pool = threads > 1 ? ck_threadpool_create(Int32(threads)) : nil
                defer { ck_threadpool_destroy(pool) }
                var actual = [UInt8](repeating: 7, count: width * height * 3 + 1)
                let status = planes[0].withUnsafeBufferPointer { p0 in
                    planes[1].withUnsafeBufferPointer { p1 in
                        planes[2].withUnsafeBufferPointer { p2 in
                            let pointers = [p0.baseAddress, p1.baseAddress, p2.baseAddress]
                            let descriptions = (0..<3).map {
                                ck_jpeg_plane(samples: pointers[$0], stride: strides[$0], low_width: lowWidth[$0], low_height: lowHeight[$0],
                                              h: Int32(hs[$0]), v: Int32(vs[$0]))
                            }
                            return ck_jpeg_planes_to_rgb(descriptions, rgb ? 1 : 0, width, height, &actual, pool)
                        }
                    }
                }
                let label = "\(width)x\(height) h\(h) v\(v) rgb \(rgb), \(threads) threads"
                XCTAssertEqual(status, 0)
                XCTAssertEqual(actual.last, 7, "wrote past the image, \(label)")
                XCTAssertEqual(Array(actual.dropLast()), expected, label)
            }
        }
    }
}
