import Foundation
import CKernels
import XCTest

/// The AVX-512 kernels (GEMM microkernel, fast depthwise path, sparse 1x1 kernel, the image
/// warp's gathered blend) against the AVX2 ones and the portable twins, on shapes that reach
/// every AVX-512 special case: tiles of 1 to 8 rows, panels with 1 to 16 live columns,
/// half-precision panels, odd 8-channel blocks, sparse tiles with a half vector and an odd
/// output channel, warps reaching past every edge. Skipped on CPUs without AVX-512.
final class AVX512KernelTests: XCTestCase {
    override func tearDown() {
        XCTAssertEqual(ck_set_isa(ck_detected_isa()), 1)
        super.tearDown()
    }

    /// `body` at each of the three levels: portable, AVX2, AVX-512.
    private func atEachLevel<T>(_ body: () -> T) -> (portable: T, avx2: T, avx512: T) {
        XCTAssertEqual(ck_set_isa(CK_ISA_PORTABLE), 1)
        let portable = body()
        XCTAssertEqual(ck_set_isa(CK_ISA_AVX2_FMA), 1)
        let avx2 = body()
        XCTAssertEqual(ck_set_isa(CK_ISA_AVX512), 1)
        let avx512 = body()
        return (portable, avx2, avx512)
    }

    func testDispatchOffersAVX2BelowAVX512() throws {
        try requireAVX512()
        XCTAssertEqual(ck_detected_isa(), CK_ISA_AVX512)
        XCTAssertEqual(ck_set_isa(CK_ISA_AVX2_FMA), 1)
        XCTAssertEqual(ck_active_isa(), CK_ISA_AVX2_FMA)
        XCTAssertEqual(ck_set_isa(CK_ISA_AVX512), 1)
        XCTAssertEqual(ck_active_isa(), CK_ISA_AVX512)
        XCTAssertEqual(ck_set_isa(CK_ISA_NEON), 0)
        XCTAssertEqual(ck_active_isa(), CK_ISA_AVX512, "a refused level changes nothing")
    }

    /// C = A * W + bias (+ residual, clamps, PReLU) with float32 or half-precision panels.
    private func gemm(m: Int, n: Int, k: Int, a: [Float], w: [Float], bias: [Float], f16: Bool, residual: [Float]?,
                      prelu: [Float]?, pool: OpaquePointer? = nil) -> [Float] {
        let stride = n + 3
        var packed = [UInt8](repeating: 0, count: max(ck_conv_packed_size(n, 1, k) * 4, ck_conv_packed_bytes_f16(n, 1, k)))
        packed.withUnsafeMutableBytes { raw in
            if f16 {
                ck_conv_pack_f16(n, 1, k, w, bias, raw.baseAddress)
            } else {
                ck_conv_pack(n, 1, k, w, bias, raw.baseAddress?.assumingMemoryBound(to: Float.self))
            }
        }
        var c = [Float](repeating: 12345, count: m * stride)
        let res = residual ?? [], slopes = prelu ?? []
        a.withUnsafeBufferPointer { ap in
            res.withUnsafeBufferPointer { rp in
                slopes.withUnsafeBufferPointer { sp in
                    packed.withUnsafeBytes { wp in
                        c.withUnsafeMutableBufferPointer { cp in
                            var p = ck_gemm_params(
                                m: m, n: n, k: k, a: ap.baseAddress, a_stride: k, packed: wp.baseAddress, c: cp.baseAddress,
                                c_stride: stride, out_min: -1, out_max: 5, prelu: prelu == nil ? nil : sp.baseAddress,
                                residual: residual == nil ? nil : rp.baseAddress, residual_stride: stride, sum_min: -2, sum_max: 3,
                                weights_f16: f16 ? 1 : 0)
                            ck_gemm(&p, pool)
                        }
                    }
                }
            }
        }
        XCTAssertTrue(c.enumerated().allSatisfy { $0.offset % stride < n || $0.element == 12345 }, "gemm wrote past its rows")
        return c
    }

    func testGEMMTilesOfEveryHeightAndWidth() throws {
        try requireAVX512()
        var g = SeededGenerator(seed: 512)
        // m from 1 (a matrix-vector product) through 8-row tiles with every remainder; n with
        // 1 ... 16 live columns in the last panel and several panels; k short and long.
        // Also: a last panel with at most 8 live columns beside a whole one (the 16 + 8 tile), and
        // half-precision panel pairs widened once per thread and call, in each loop order:
        // panels outer (24x120x64, 43x56x200), rows outer in blocks (64x64x300), rows outer
        // tile by tile (40x32x96), and a single row tile that reads the halves (8x88x255).
        for (m, n, k) in [(1, 70, 33), (3, 16, 5), (8, 1, 17), (9, 31, 64), (15, 48, 7), (17, 24, 40), (64, 9, 128), (61, 100, 3),
                          (24, 120, 64), (43, 56, 200), (8, 88, 255), (64, 64, 300), (40, 32, 96), (33, 40, 700)] {
            let a = randomFloats(m * k, &g), bias = randomFloats(n, &g), slopes = randomFloats(n, &g, in: 0...0.5)
            let w = randomFloats(n * k, &g).map { ($0 * 2048).rounded() / 2048 } // half-precision values
            let residual = randomFloats(m * (n + 3), &g, in: -3...3)
            for f16 in [false, true] {
                for (res, prelu) in [(nil, nil), (residual, nil), (nil, slopes), (residual, slopes)] as [([Float]?, [Float]?)] {
                    let what = "\(m)x\(n)x\(k) f16 \(f16) residual \(res != nil) prelu \(prelu != nil)"
                    let r = atEachLevel { gemm(m: m, n: n, k: k, a: a, w: w, bias: bias, f16: f16, residual: res, prelu: prelu) }
                    assertClose(r.avx512, r.portable, tolerance: 1e-5, "avx512 against portable, \(what)")
                    assertClose(r.avx512, r.avx2, tolerance: 1e-5, "avx512 against avx2, \(what)")
                }
            }
        }
    }

    func testGEMMResultDoesNotDependOnThreads() throws {
        try requireAVX512()
        XCTAssertEqual(ck_set_isa(CK_ISA_AVX512), 1)
        var g = SeededGenerator(seed: 513)
        let (m, n, k) = (97, 70, 45)
        let a = randomFloats(m * k, &g), w = randomFloats(n * k, &g), bias = randomFloats(n, &g)
        let single = gemm(m: m, n: n, k: k, a: a, w: w, bias: bias, f16: false, residual: nil, prelu: nil)
        // Half precision, panels outer and rows outer: threads take different runs of row
        // tiles, so a pair of panels is widened for some tiles and read as halves for others,
        // and the layers alternate on each thread (a copy from one call must never serve another).
        let halves = [(49, 200, 112), (97, 64, 300)].map { (m, n, k) in
            let w = randomFloats(n * k, &g).map { ($0 * 2048).rounded() / 2048 }
            return (m: m, n: n, k: k, a: randomFloats(m * k, &g), w: w, bias: randomFloats(n, &g))
        }
        let halfSingles = halves.map { gemm(m: $0.m, n: $0.n, k: $0.k, a: $0.a, w: $0.w, bias: $0.bias, f16: true, residual: nil, prelu: nil) }
        for threads in [2, 3] {
            let pool = ck_threadpool_create(Int32(threads))
            for _ in 0..<5 {
                XCTAssertEqual(gemm(m: m, n: n, k: k, a: a, w: w, bias: bias, f16: false, residual: nil, prelu: nil, pool: pool), single,
                               "\(threads) threads")
                for (h, expected) in zip(halves, halfSingles) {
                    XCTAssertEqual(gemm(m: h.m, n: h.n, k: h.k, a: h.a, w: h.w, bias: h.bias, f16: true, residual: nil, prelu: nil, pool: pool),
                                   expected, "\(threads) threads, half precision \(h.m)x\(h.n)x\(h.k)")
                }
            }
            ck_threadpool_destroy(pool)
        }
    }

    func testDepthwiseFastPathsBitIdenticalToAVX2() throws {
        try requireAVX512()
        var g = SeededGenerator(seed: 514)
        // 8 channels (one half vector), 24 (a pair and a half), 16 and 48 (whole vectors); every
        // fast geometry; rows long enough for whole spans and short enough for tails.
        for c in [8, 16, 24, 48] {
            for (kernel, stride) in [(3, 1), (3, 2), (5, 1), (5, 2)] {
                for (h, w) in [(7, 7), (12, 19), (3, 40)] {
                    let pad = kernel / 2
                    let oh = (h + 2 * pad - kernel) / stride + 1, ow = (w + 2 * pad - kernel) / stride + 1
                    let input = randomFloats(h * w * c, &g), weights = randomFloats(kernel * kernel * c, &g)
                    let bias = randomFloats(c, &g), slopes = randomFloats(c, &g, in: 0...0.5)
                    var packed = [Float](repeating: .nan, count: ck_dwconv_packed_size(c, kernel * kernel))
                    bias.withUnsafeBufferPointer { ck_dwconv_pack(c, kernel * kernel, weights, $0.baseAddress, &packed) }
                    for prelu in [false, true] {
                        for threads in [1, 2] {
                            let pool = threads > 1 ? ck_threadpool_create(Int32(threads)) : nil
                            defer { if let pool { ck_threadpool_destroy(pool) } }
                            let run = { () -> [Float] in
                                var out = [Float](repeating: 777, count: (oh * ow + 1) * c)
                                input.withUnsafeBufferPointer { ip in
                                    packed.withUnsafeBufferPointer { wp in
                                        slopes.withUnsafeBufferPointer { sp in
                                            out.withUnsafeMutableBufferPointer { op in
                                                var p = ck_dwconv_params(
                                                    batch: 1, in_h: h, in_w: w, channels: c, out_h: oh, out_w: ow, kernel_h: kernel,
                                                    kernel_w: kernel, stride_h: stride, stride_w: stride, dilation_h: 1, dilation_w: 1,
                                                    pad_top: pad, pad_left: pad, input: ip.baseAddress, packed: wp.baseAddress, zero: nil,
                                                    output: op.baseAddress, out_min: -1, out_max: 2, prelu: prelu ? sp.baseAddress : nil,
                                                    line_spans: -1)
                                                ck_dwconv(&p, pool)
                                            }
                                        }
                                    }
                                }
                                return out
                            }
                            let what = "\(h)x\(w)x\(c) \(kernel)x\(kernel)/\(stride) prelu \(prelu) threads \(threads)"
                            let r = atEachLevel(run)
                            XCTAssertTrue(r.avx512[(oh * ow * c)...].allSatisfy { $0 == 777 }, "wrote past the output, \(what)")
                            XCTAssertEqual(r.avx512, r.avx2, "avx512 against avx2, \(what)")
                            assertClose(r.avx512, r.portable, tolerance: 1e-5, "avx512 against portable, \(what)")
                        }
                    }
                }
            }
        }
    }

    func testSparseBitIdenticalToAVX2() throws {
        try requireAVX512()
        var g = SeededGenerator(seed: 515)
        // Pixel counts giving 1 ... 8 vectors of 8 in a tile (odd counts end in a half vector of
        // 16), odd output counts (the last channel without a partner), one and several channel
        // blocks of the input.
        for (m, n, k) in [(8, 7, 16), (49, 33, 192), (23, 64, 40), (64, 17, 300), (130, 24, 64), (7, 9, 9), (49, 200, 48)] {
            for density: Float in [0.1, 0.4] {
                let a = randomFloats(m * k, &g), bias = randomFloats(n, &g), slopes = randomFloats(n, &g, in: 0...0.5)
                let weights = randomFloats(n * k, &g).map { Float.random(in: 0..<1, using: &g) < density ? $0 : 0 }
                let residual = randomFloats(m * (n + 3), &g, in: -3...3)
                let packed = UnsafeMutableRawPointer.allocate(byteCount: ck_spconv_packed_bytes(n, k, weights), alignment: 64)
                defer { packed.deallocate() }
                ck_spconv_pack(n, k, weights, bias, packed)
                for threads in [1, 2] {
                    let pool = threads > 1 ? ck_threadpool_create(Int32(threads)) : nil
                    defer { if let pool { ck_threadpool_destroy(pool) } }
                    let run = { () -> [Float] in
                        var scratch = [Float](repeating: .nan, count: threads * ck_spconv_scratch_floats(n, k))
                        var out = [Float](repeating: 12345, count: m * (n + 3))
                        a.withUnsafeBufferPointer { ap in
                            residual.withUnsafeBufferPointer { rp in
                                slopes.withUnsafeBufferPointer { sp in
                                    scratch.withUnsafeMutableBufferPointer { scp in
                                        out.withUnsafeMutableBufferPointer { op in
                                            var p = ck_spconv_params(
                                                m: m, n: n, k: k, a: ap.baseAddress, a_stride: k, packed: packed, c: op.baseAddress,
                                                c_stride: n + 3, out_min: -1, out_max: 5, prelu: sp.baseAddress, residual: rp.baseAddress,
                                                residual_stride: n + 3, sum_min: -2, sum_max: 4, scratch: scp.baseAddress,
                                                scratch_slots: threads)
                                            ck_spconv(&p, pool)
                                        }
                                    }
                                }
                            }
                        }
                        return out
                    }
                    let what = "\(m)x\(n)x\(k) density \(density) threads \(threads)"
                    let r = atEachLevel(run)
                    XCTAssertEqual(r.avx512, r.avx2, "avx512 against avx2, \(what)")
                    assertClose(r.avx512, r.portable, tolerance: 1e-5, "avx512 against portable, \(what)")
                }
            }
        }
    }

    func testImageWarpToFloatBitIdenticalToAVX2AndPortable() throws {
        try requireAVX512()
        var g = SeededGenerator(seed: 516)
        for trial in 0..<60 {
            let sw = Int.random(in: 1...300, using: &g), sh = Int.random(in: 1...200, using: &g)
            let channels = Int.random(in: 3...4, using: &g), stride = sw * channels + Int.random(in: 0...2, using: &g)
            let src = (0..<(stride * sh)).map { _ in UInt8.random(in: 0...255, using: &g) }
            let dw = Int.random(in: 1...100, using: &g), dh = Int.random(in: 1...60, using: &g)
            let angle = Double.random(in: 0..<(2 * .pi), using: &g), scale = Double.random(in: 0.2...3, using: &g)
            var matrix = [scale * cos(angle), -scale * sin(angle), Double.random(in: -20...Double(sw + 20), using: &g),
                          scale * sin(angle), scale * cos(angle), Double.random(in: -20...Double(sh + 20), using: &g), 0, 0, 1]
            if trial % 3 == 0 { matrix[6] = 0.0003; matrix[7] = -0.0002 } // a perspective map too
            let border = trial % 2 == 0 ? CK_BORDER_ZERO : CK_BORDER_REPLICATE
            let run = { () -> [UInt32] in
                var out = [Float](repeating: .nan, count: dw * dh * 3)
                let status = src.withUnsafeBufferPointer { s in
                    matrix.withUnsafeBufferPointer { m in
                        out.withUnsafeMutableBufferPointer { d in
                            ck_warp_perspective_u8_to_f32(s.baseAddress, Int32(sw), Int32(sh), stride, Int32(channels), m.baseAddress,
                                                          Int32(border.rawValue), 2.0 / 255.0, -1, d.baseAddress, Int32(dw), Int32(dh), nil)
                        }
                    }
                }
                XCTAssertEqual(status, Int32(CK_WARP_OK))
                return out.map(\.bitPattern)
            }
            let r = atEachLevel(run)
            let what = "\(sw)x\(sh)x\(channels) -> \(dw)x\(dh), trial \(trial)"
            XCTAssertEqual(r.avx512, r.avx2, "avx512 against avx2, \(what)")
            XCTAssertEqual(r.avx512, r.portable, "avx512 against portable, \(what)")
        }
    }
}
