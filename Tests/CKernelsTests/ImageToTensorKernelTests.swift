import CKernels
import XCTest

/// Pins the fixed-point semantics of OpenCV's classic bilinear warp that MediaPipe's
/// preprocessing relies on, on small cases computed by hand.
final class ImageToTensorKernelTests: XCTestCase {
    override func tearDown() {
        XCTAssertEqual(ck_set_isa(ck_detected_isa()), 1)
        super.tearDown()
    }

    private func weights(_ index: Int) -> [Int32] {
        var w = [Int32](repeating: 0, count: 4)
        w.withUnsafeMutableBufferPointer { ck_bilinear_weights_q15(Int32(index), $0.baseAddress) }
        return w
    }

    /// Translation by (dx, dy): destination (x, y) reads source (x + dx, y + dy).
    private func translation(_ dx: Double, _ dy: Double) -> [Double] { [1, 0, dx, 0, 1, dy, 0, 0, 1] }

    /// Warps a 3-channel image (all channels equal to `gray`) and returns channel 0.
    private func warpGray(
        _ gray: [UInt8], width: Int, height: Int, matrix: [Double], border: ck_border_mode,
        outWidth: Int, outHeight: Int, file: StaticString = #filePath, line: UInt = #line
    ) -> [UInt8] {
        let rgb = gray.flatMap { [$0, $0, $0] }
        var out = [UInt8](repeating: 7, count: outWidth * outHeight * 3)
        let status = rgb.withUnsafeBufferPointer { src in
            matrix.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { dst in
                    ck_warp_perspective_u8(
                        src.baseAddress, Int32(width), Int32(height), width * 3, 3, m.baseAddress,
                        Int32(border.rawValue), dst.baseAddress, Int32(outWidth), Int32(outHeight))
                }
            }
        }
        XCTAssertEqual(status, Int32(CK_WARP_OK), file: file, line: line)
        for i in stride(from: 0, to: out.count, by: 3) {
            XCTAssertEqual(out[i], out[i + 1], file: file, line: line)
            XCTAssertEqual(out[i], out[i + 2], file: file, line: line)
        }
        return stride(from: 0, to: out.count, by: 3).map { out[$0] }
    }

    func testWeightTableIs15BitBilinear() {
        // Fraction (fx, fy) in 1/32 → index 32·fy + fx; weights (1−fx)(1−fy), fx(1−fy), (1−fx)fy, fx·fy.
        XCTAssertEqual(weights(16), [16384, 16384, 0, 0])  // fx = 1/2
        XCTAssertEqual(weights(16 * 32), [16384, 0, 16384, 0])  // fy = 1/2
        XCTAssertEqual(weights(16 * 32 + 16), [8192, 8192, 8192, 8192])
        XCTAssertEqual(weights(1), [31744, 1024, 0, 0])  // fx = 1/32
        XCTAssertEqual(weights(8 + 16 * 32), [12288, 4096, 12288, 4096])  // fx = 1/4, fy = 1/2
        // 1.0 · 32768 saturates to 32767 in int16; OpenCV's correction then adds the missing 1 to
        // the 4th weight.
        XCTAssertEqual(weights(0), [32767, 0, 0, 1])
        for index in 0..<1024 {
            XCTAssertEqual(weights(index).reduce(0, +), 32768, "kernel \(index)")
        }
        var f = [Float](repeating: 0, count: 4)
        f.withUnsafeMutableBufferPointer { ck_bilinear_weights_f32(8 + 16 * 32, $0.baseAddress) }
        XCTAssertEqual(f, [0.375, 0.125, 0.375, 0.125])
    }

    func testCoordinatesAreQuantisedTo32ndsOfAPixel() {
        // Source row 0, 255 (a ramp). Reading x = 0.02 would give 5.1 → 5 with exact bilinear
        // interpolation; OpenCV rounds 0.02·32 = 0.64 to 1/32 and blends 255·1024/32768 = 7.97
        // → (261120 + 16384) >> 15 = 8.
        let out = warpGray(
            [0, 255, 0, 255], width: 2, height: 2, matrix: translation(0.02, 0), border: CK_BORDER_REPLICATE,
            outWidth: 1, outHeight: 1)
        XCTAssertEqual(out, [8])
    }

    func testBlendRoundsHalfUp() {
        // x = 0.5 between 0 and 1: (1·16384 + 16384) >> 15 = 1 (round half up, not to even).
        let out = warpGray(
            [0, 1, 0, 1], width: 2, height: 2, matrix: translation(0.5, 0), border: CK_BORDER_REPLICATE,
            outWidth: 1, outHeight: 1)
        XCTAssertEqual(out, [1])
    }

    func testCoordinateRoundingIsHalfToEven() {
        // Source x = out x + 1/64 → 32·x + 0.5 in 1/32 units, rounded to even: 0 for x = 0,
        // 32 for x = 1: both read whole pixels. With 3/64: 1.5 → 2 (fx = 2/32) and 33.5 → 34.
        let ramp: [UInt8] = [0, 128, 255, 255]
        let exact = warpGray(
            ramp, width: 4, height: 1, matrix: translation(1.0 / 64, 0), border: CK_BORDER_REPLICATE,
            outWidth: 2, outHeight: 1)
        XCTAssertEqual(exact, [0, 128])
        let shifted = warpGray(
            ramp, width: 4, height: 1, matrix: translation(3.0 / 64, 0), border: CK_BORDER_REPLICATE,
            outWidth: 2, outHeight: 1)
        // x0: 128·(2/32) = 8 exactly; x1: 128·(30/32) + 255·(2/32) = 135.9375 → 136.
        XCTAssertEqual(shifted, [8, 136])
    }

    func testBordersZeroAndReplicate() {
        // Reading x = −0.5 at the left edge: zero border blends 0 and 40, replicate repeats 40.
        let image: [UInt8] = [40, 80, 40, 80]
        let zero = warpGray(
            image, width: 2, height: 2, matrix: translation(-0.5, 0), border: CK_BORDER_ZERO,
            outWidth: 1, outHeight: 1)
        XCTAssertEqual(zero, [20])
        let replicate = warpGray(
            image, width: 2, height: 2, matrix: translation(-0.5, 0), border: CK_BORDER_REPLICATE,
            outWidth: 1, outHeight: 1)
        XCTAssertEqual(replicate, [40])
        // Far outside.
        XCTAssertEqual(
            warpGray(image, width: 2, height: 2, matrix: translation(-10, -10), border: CK_BORDER_ZERO, outWidth: 1, outHeight: 1),
            [0])
        XCTAssertEqual(
            warpGray(image, width: 2, height: 2, matrix: translation(10, 10), border: CK_BORDER_REPLICATE, outWidth: 1, outHeight: 1),
            [80])
    }

    func testFloatConversionIsFusedMultiplyAdd() {
        // 33 → [−1, 1]: fma gives −0.7411764 (0xBF3DBDBD); multiply-then-add would give
        // −0.7411765 (0xBF3DBDBE). MediaPipe's OpenCV converts with FMA on AVX2 machines.
        let scale: Float = 2.0 / 255.0
        let pixels: [UInt8] = [33, 33, 33]
        let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        for isa in [CK_ISA_PORTABLE] + Self.simdLevels {
            XCTAssertEqual(ck_set_isa(isa), 1)
            var out = [Float](repeating: 0, count: 3)
            let status = pixels.withUnsafeBufferPointer { src in
                identity.withUnsafeBufferPointer { m in
                    out.withUnsafeMutableBufferPointer { dst in
                        ck_warp_perspective_u8_to_f32(
                            src.baseAddress, 1, 1, 3, 3, m.baseAddress, Int32(CK_BORDER_ZERO.rawValue),
                            scale, -1, dst.baseAddress, 1, 1, nil)
                    }
                }
            }
            XCTAssertEqual(status, Int32(CK_WARP_OK))
            XCTAssertEqual(out.map(\.bitPattern), [0xBF3D_BDBD, 0xBF3D_BDBD, 0xBF3D_BDBD], "isa \(isa)")
        }
    }

    /// `count` pseudo-random bytes (a linear congruential generator from `seed`).
    private func randomBytes(_ count: Int, seed: UInt32) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// `ck_warp_perspective_u8_to_f32` of a packed `channels`-channel image into a new
    /// outWidth x outHeight x 3 tensor (NaN where nothing was written), and its status.
    private func warpToFloat(_ src: [UInt8], width: Int, height: Int, channels: Int, matrix: [Double],
                             border: ck_border_mode, scale: Float, offset: Float, outWidth: Int, outHeight: Int,
                             pool: OpaquePointer? = nil) -> (values: [Float], status: Int32) {
        var out = [Float](repeating: .nan, count: outWidth * outHeight * 3)
        let status = src.withUnsafeBufferPointer { s in
            matrix.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { d in
                    ck_warp_perspective_u8_to_f32(
                        s.baseAddress, Int32(width), Int32(height), width * channels, Int32(channels), m.baseAddress,
                        Int32(border.rawValue), scale, offset, d.baseAddress, Int32(outWidth), Int32(outHeight), pool)
                }
            }
        }
        return (out, status)
    }

    func testAVX2AndPortableAgree() throws {
        #if arch(x86_64)
        guard ck_isa_has_avx2(ck_detected_isa()) != 0 else { throw XCTSkip("CPU has no AVX2/FMA") }
        let w = 53, h = 41
        let src = randomBytes(w * h * 4, seed: 12345)
        // A rotated, scaled, slightly perspective map reaching outside the image.
        let matrix: [Double] = [0.31, -0.27, 12.3, 0.22, 0.35, -4.7, 0.0004, -0.0002, 1.01]
        func run(_ isa: ck_isa, _ border: ck_border_mode) -> [Float] {
            XCTAssertEqual(ck_set_isa(isa), 1)
            return warpToFloat(src, width: w, height: h, channels: 4, matrix: matrix, border: border, scale: 1.0 / 255.0,
                               offset: 0, outWidth: 97, outHeight: 75).values
        }
        for border in [CK_BORDER_ZERO, CK_BORDER_REPLICATE] {
            let portable = run(CK_ISA_PORTABLE, border)
            let avx2 = run(CK_ISA_AVX2_FMA, border)
            XCTAssertEqual(portable.map(\.bitPattern), avx2.map(\.bitPattern))
            if Self.simdLevels.contains(CK_ISA_AVX512) {
                // The warp has no AVX-512 version: at that level it runs the AVX2 one.
                XCTAssertEqual(run(CK_ISA_AVX512, border).map(\.bitPattern), avx2.map(\.bitPattern))
            }
            XCTAssertGreaterThan(Set(portable).count, 50)  // a real image, not a constant
        }
        #else
        throw XCTSkip("x86-64 only")
        #endif
    }

    func testThreadsShareTheRowsBitForBit() {
        let w = 161, h = 123
        let src = randomBytes(w * h * 4, seed: 777)
        // Rotated, scaled and slightly perspective, reaching outside the image.
        let matrix: [Double] = [0.62, -0.41, 40.3, 0.37, 0.58, -9.7, 0.0003, -0.0002, 1.02]
        func run(channels: Int, border: ck_border_mode, size: (Int, Int), threads: Int) -> [Float] {
            let pool = threads > 1 ? ck_threadpool_create(Int32(threads)) : nil
            defer { ck_threadpool_destroy(pool) }
            let (out, status) = warpToFloat(src, width: w, height: h, channels: channels, matrix: matrix, border: border,
                                            scale: 2.0 / 255.0, offset: -1, outWidth: size.0, outHeight: size.1, pool: pool)
            XCTAssertEqual(status, Int32(CK_WARP_OK))
            return out
        }
        // Model inputs (split over the threads), a small output (below the work worth sharing)
        // and one wider than the rows kept on the stack (on the calling thread alone).
        let sizes = [(224, 224), (256, 256), (97, 75), (3, 2), (1100, 3)]
        for isa in [CK_ISA_PORTABLE] + Self.simdLevels {
            XCTAssertEqual(ck_set_isa(isa), 1)
            for channels in [3, 4] {
                for border in [CK_BORDER_ZERO, CK_BORDER_REPLICATE] {
                    for size in sizes {
                        let alone = run(channels: channels, border: border, size: size, threads: 1)
                        XCTAssertFalse(alone.contains { $0.isNaN }, "every value written")
                        for threads in [2, 3] {
                            XCTAssertEqual(run(channels: channels, border: border, size: size, threads: threads).map(\.bitPattern),
                                           alone.map(\.bitPattern),
                                           "isa \(isa), \(channels) channels, border \(border), \(size), \(threads) threads")
                        }
                    }
                }
            }
        }
    }

    func testThreadsShareTheAffineWarpsRowsBitForBit() {
        var state: UInt32 = 4242
        func next() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24)
        }
        let w = 256, h = 256
        let src = (0..<(w * h)).map { _ in next() }
        // A rotated, scaled crop back onto a larger image (as a segmentation mask goes back).
        let matrix: [Double] = [0.21, 0.09, -30.5, -0.08, 0.22, 12.25]
        func run(border: ck_border_mode, size: (Int, Int), threads: Int) -> [Float] {
            let pool = threads > 1 ? ck_threadpool_create(Int32(threads)) : nil
            defer { ck_threadpool_destroy(pool) }
            var out = [Float](repeating: .nan, count: size.0 * size.1)
            let status = src.withUnsafeBufferPointer { s in
                matrix.withUnsafeBufferPointer { m in
                    out.withUnsafeMutableBufferPointer { d in
                        ck_warp_affine_f32c1(s.baseAddress, Int32(w), Int32(h), w, m.baseAddress, Int32(border.rawValue), 0.25,
                                             d.baseAddress, Int32(size.0), Int32(size.1), pool)
                    }
                }
            }
            XCTAssertEqual(status, Int32(CK_WARP_OK))
            return out
        }
        // Image sizes (split over the threads), a small one (below the work worth sharing) and
        // one wider than the offsets kept on the stack (on the calling thread alone).
        for size in [(1280, 720), (640, 480), (5, 3), (2100, 40)] {
            for border in [CK_BORDER_ZERO, CK_BORDER_REPLICATE] {
                let alone = run(border: border, size: size, threads: 1)
                XCTAssertFalse(alone.contains { $0.isNaN }, "every value written")
                if size.0 * size.1 > 1000 { XCTAssertGreaterThan(Set(alone).count, 10, "\(size): a real warp, not a constant") }
                for threads in [2, 3] {
                    XCTAssertEqual(run(border: border, size: size, threads: threads).map(\.bitPattern), alone.map(\.bitPattern),
                                   "border \(border), \(size), \(threads) threads")
                }
            }
        }
    }

    func testBadArgumentsAreRefused() {
        let src = [UInt8](repeating: 0, count: 12)
        let m: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        var out = [UInt8](repeating: 0, count: 12)
        func call(width: Int32, height: Int32, stride: Int, channels: Int32, border: Int32, ow: Int32) -> Int32 {
            src.withUnsafeBufferPointer { s in
                m.withUnsafeBufferPointer { mp in
                    out.withUnsafeMutableBufferPointer { d in
                        ck_warp_perspective_u8(
                            s.baseAddress, width, height, stride, channels, mp.baseAddress, border,
                            d.baseAddress, ow, 1)
                    }
                }
            }
        }
        let bad = Int32(CK_WARP_BAD_ARGUMENT)
        XCTAssertEqual(call(width: 2, height: 2, stride: 6, channels: 3, border: 0, ow: 2), Int32(CK_WARP_OK))
        XCTAssertEqual(call(width: 0, height: 2, stride: 6, channels: 3, border: 0, ow: 2), bad)
        XCTAssertEqual(call(width: 2, height: 2, stride: 5, channels: 3, border: 0, ow: 2), bad)
        XCTAssertEqual(call(width: 2, height: 2, stride: 6, channels: 2, border: 0, ow: 2), bad)
        XCTAssertEqual(call(width: 2, height: 2, stride: 6, channels: 3, border: 9, ow: 2), bad)
        XCTAssertEqual(call(width: 2, height: 2, stride: 6, channels: 3, border: 0, ow: 0), bad)
        XCTAssertEqual(
            ck_warp_perspective_u8(nil, 2, 2, 6, 3, nil, 0, nil, 1, 1), bad)
        XCTAssertEqual(ck_warp_affine_f32c1(nil, 1, 1, 1, nil, 0, 0, nil, 1, 1, nil), bad)
    }

    func testAffineFloatWarpBlendsWithFloatWeights() {
        // Source 2×2 floats; destination (0, 0) reads (0.5, 0.25): weights (1/2, 1/2) × (3/4, 1/4).
        let src: [Float] = [1, 3, 5, 7]
        let m: [Double] = [1, 0, 0.5, 0, 1, 0.25]
        var out: [Float] = [0, 0]
        let status = src.withUnsafeBufferPointer { s in
            m.withUnsafeBufferPointer { mp in
                out.withUnsafeMutableBufferPointer { d in
                    ck_warp_affine_f32c1(
                        s.baseAddress, 2, 2, 2, mp.baseAddress, Int32(CK_BORDER_ZERO.rawValue), 0,
                        d.baseAddress, 2, 1, nil)
                }
            }
        }
        XCTAssertEqual(status, Int32(CK_WARP_OK))
        // (1·0.375 + 3·0.375) + 5·0.125 + 7·0.125 = 3; second pixel reads x = 1.5: the right
        // neighbours are outside and count as 0: 3·0.375 + 7·0.125 = 2.
        XCTAssertEqual(out, [3, 2])
    }
}
