import CKernels
import XCTest

final class GEMMTests: XCTestCase {
    /// Shapes with tails in every direction: m not a multiple of 6, n not of 16.
    static let shapes: [(m: Int, n: Int, k: Int)] = [(1, 1, 1), (5, 17, 3), (6, 16, 8), (7, 33, 29), (13, 8, 64), (61, 47, 5), (100, 130, 33)]

    func pack(n: Int, taps: Int, k: Int, weights: [Float], bias: [Float]?) -> [Float] {
        var packed = [Float](repeating: .nan, count: ck_conv_packed_size(n, taps, k))
        if let bias {
            bias.withUnsafeBufferPointer { ck_conv_pack(n, taps, k, weights, $0.baseAddress, &packed) }
        } else {
            ck_conv_pack(n, taps, k, weights, nil, &packed)
        }
        return packed
    }

    /// Half-precision panels (`ck_conv_pack_f16`) of weights that are half-precision values.
    func packHalf(n: Int, taps: Int, k: Int, weights: [Float], bias: [Float]) -> [UInt8] {
        var packed = [UInt8](repeating: 0xff, count: ck_conv_packed_bytes_f16(n, taps, k))
        bias.withUnsafeBufferPointer { b in packed.withUnsafeMutableBytes { ck_conv_pack_f16(n, taps, k, weights, b.baseAddress, $0.baseAddress) } }
        return packed
    }

    func gemm(m: Int, n: Int, k: Int, a: [Float], packed: [Float], lo: Float, hi: Float, prelu: [Float]?, pool: OpaquePointer? = nil) -> [Float] {
        // Output rows are padded by 3 columns of sentinels that must stay untouched.
        let stride = n + 3
        var c = [Float](repeating: 12345, count: m * stride)
        a.withUnsafeBufferPointer { ap in
            packed.withUnsafeBufferPointer { wp in
                c.withUnsafeMutableBufferPointer { cp in
                    let slopes = prelu
                    let cBase = cp.baseAddress
                    let run = { (sp: UnsafePointer<Float>?) in
                        var params = ck_gemm_params(m: m, n: n, k: k, a: ap.baseAddress, a_stride: k, packed: wp.baseAddress,
                                                    c: cBase, c_stride: stride, out_min: lo, out_max: hi, prelu: sp,
                                                    residual: nil, residual_stride: 0, sum_min: -.infinity, sum_max: .infinity, weights_f16: 0)
                        ck_gemm(&params, pool)
                    }
                    if let slopes { slopes.withUnsafeBufferPointer { run($0.baseAddress) } } else { run(nil) }
                }
            }
        }
        return c
    }

    func reference(m: Int, n: Int, k: Int, a: [Float], w: [Float], bias: [Float], lo: Float, hi: Float, prelu: [Float]?) -> [Float] {
        var c = [Float](repeating: 12345, count: m * (n + 3))
        for i in 0..<m {
            for j in 0..<n {
                var sum = Double(bias[j])
                for p in 0..<k { sum += Double(a[i * k + p]) * Double(w[j * k + p]) }
                var v = min(max(Float(sum), lo), hi)
                if let prelu, v < 0 { v *= prelu[j] }
                c[i * (n + 3) + j] = v
            }
        }
        return c
    }

    func testPortableMatchesReferenceAndSIMDMatchesPortable() throws {
        var g = SeededGenerator(seed: 1)
        for (m, n, k) in Self.shapes {
            let a = randomFloats(m * k, &g), w = randomFloats(n * k, &g), bias = randomFloats(n, &g)
            let slopes = randomFloats(n, &g, in: 0...0.5)
            let packed = pack(n: n, taps: 1, k: k, weights: w, bias: bias)
            for (lo, hi, prelu) in [(-Float.infinity, Float.infinity, nil), (0, 6, nil), (-Float.infinity, Float.infinity, slopes)] as [(Float, Float, [Float]?)] {
                let expected = reference(m: m, n: n, k: k, a: a, w: w, bias: bias, lo: lo, hi: hi, prelu: prelu)
                let (portable, levels) = try portableAndEachSIMD { gemm(m: m, n: n, k: k, a: a, packed: packed, lo: lo, hi: hi, prelu: prelu) }
                assertClose(portable, expected, tolerance: 1e-5, "portable gemm \(m)x\(n)x\(k)")
                for simd in levels { assertClose(simd.result, portable, tolerance: 1e-5, "\(simd.level) gemm \(m)x\(n)x\(k)") }
            }
        }
    }

    /// Rows first (97x70x45: the rows outweigh the weights), and weights first (100x200x64) with
    /// the rows cut into one part per thread (2 and 3 threads) or not (4 threads: too few rows).
    func testThreadPoolGivesIdenticalResults() {
        var g = SeededGenerator(seed: 2)
        for (m, n, k) in [(97, 70, 45), (100, 200, 64)] {
            let a = randomFloats(m * k, &g), w = randomFloats(n * k, &g)
            let packed = pack(n: n, taps: 1, k: k, weights: w, bias: nil)
            let single = gemm(m: m, n: n, k: k, a: a, packed: packed, lo: -.infinity, hi: .infinity, prelu: nil)
            for threads in [2, 3, 4] {
                let pool = ck_threadpool_create(Int32(threads))
                XCTAssertNotNil(pool)
                XCTAssertEqual(ck_threadpool_thread_count(pool), Int32(threads))
                for _ in 0..<20 {
                    XCTAssertEqual(gemm(m: m, n: n, k: k, a: a, packed: packed, lo: -.infinity, hi: .infinity, prelu: nil, pool: pool), single,
                                   "\(m)x\(n)x\(k) on \(threads) threads")
                }
                ck_threadpool_destroy(pool)
            }
        }
    }

    func testIndirectGEMMMatchesDirectConvolution() throws {
        var g = SeededGenerator(seed: 3)
        // A 3x3 stride-2 SAME-like convolution on a 9x7 image with 5 channels and 19 outputs,
        // built as an indirection buffer with a zero row for padding.
        let (h, w, c, oc, kh, kw, stride) = (9, 7, 5, 19, 3, 3, 2)
        let (oh, ow) = ((h + 1) / 2, (w + 1) / 2)
        let image = randomFloats(h * w * c, &g), weights = randomFloats(oc * kh * kw * c, &g), bias = randomFloats(oc, &g)
        let zeros = [Float](repeating: 0, count: c)
        let packed = pack(n: oc, taps: kh * kw, k: c, weights: weights, bias: bias)
        var expected = [Float](repeating: 0, count: oh * ow * oc)
        for oy in 0..<oh {
            for ox in 0..<ow {
                for o in 0..<oc {
                    var sum = Double(bias[o])
                    for ky in 0..<kh {
                        for kx in 0..<kw {
                            let iy = oy * stride + ky - 1, ix = ox * stride + kx - 1
                            guard iy >= 0, iy < h, ix >= 0, ix < w else { continue }
                            for i in 0..<c { sum += Double(image[(iy * w + ix) * c + i]) * Double(weights[((o * kh + ky) * kw + kx) * c + i]) }
                        }
                    }
                    expected[(oy * ow + ox) * oc + o] = Float(sum)
                }
            }
        }
        let (portable, levels) = try portableAndEachSIMD { () -> [Float] in
            var out = [Float](repeating: 0, count: oh * ow * oc)
            image.withUnsafeBufferPointer { ip in
                zeros.withUnsafeBufferPointer { zp in
                    var indirection: [UnsafePointer<Float>?] = []
                    for oy in 0..<oh {
                        for ox in 0..<ow {
                            for ky in 0..<kh {
                                for kx in 0..<kw {
                                    let iy = oy * stride + ky - 1, ix = ox * stride + kx - 1
                                    let inside = iy >= 0 && iy < h && ix >= 0 && ix < w
                                    indirection.append(inside ? ip.baseAddress! + (iy * w + ix) * c : zp.baseAddress)
                                }
                            }
                        }
                    }
                    indirection.withUnsafeBufferPointer { table in
                        packed.withUnsafeBufferPointer { wp in
                            out.withUnsafeMutableBufferPointer { op in
                                var params = ck_igemm_params(m: oh * ow, n: oc, k: c, taps: kh * kw, indirection: table.baseAddress,
                                                             packed: wp.baseAddress, c: op.baseAddress, c_stride: oc,
                                                             out_min: -.infinity, out_max: .infinity, prelu: nil,
                                                             residual: nil, residual_stride: 0, sum_min: -.infinity, sum_max: .infinity,
                                                             weights_f16: 0)
                                ck_igemm(&params, nil)
                            }
                        }
                    }
                }
            }
            return out
        }
        assertClose(portable, expected, tolerance: 1e-5, "portable igemm")
        for simd in levels { assertClose(simd.result, portable, tolerance: 1e-5, "\(simd.level) igemm") }
    }

    func testNarrowConvolutionAgainstReference() throws {
        var g = SeededGenerator(seed: 4)
        for (m, n, k, taps) in [(7, 1, 8, 9), (5, 3, 13, 4), (9, 4, 3, 1), (1, 2, 16, 2)] {
            // Each pixel's taps point at random rows of a pool of inputs (or at zeros).
            let pool = randomFloats(10 * k, &g), zeros = [Float](repeating: 0, count: k)
            let choice = (0..<(m * taps)).map { _ in Int.random(in: 0...10, using: &g) }
            let weights = randomFloats(n * taps * k, &g), bias = randomFloats(n, &g), slopes = randomFloats(n, &g, in: 0...0.5)
            var expected = [Float](repeating: 0, count: m * n)
            for i in 0..<m {
                for j in 0..<n {
                    var sum = Double(bias[j])
                    for t in 0..<taps where choice[i * taps + t] < 10 {
                        for q in 0..<k { sum += Double(pool[choice[i * taps + t] * k + q]) * Double(weights[(j * taps + t) * k + q]) }
                    }
                    let v = Float(sum)
                    expected[i * n + j] = v < 0 ? v * slopes[j] : v
                }
            }
            let (portable, levels) = try portableAndEachSIMD { () -> [Float] in
                var out = [Float](repeating: 0, count: m * n)
                pool.withUnsafeBufferPointer { pp in
                    zeros.withUnsafeBufferPointer { zp in
                        let table: [UnsafePointer<Float>?] = choice.map { $0 < 10 ? pp.baseAddress! + $0 * k : zp.baseAddress }
                        table.withUnsafeBufferPointer { tp in
                            weights.withUnsafeBufferPointer { wp in
                                bias.withUnsafeBufferPointer { bp in
                                    slopes.withUnsafeBufferPointer { sp in
                                        out.withUnsafeMutableBufferPointer { op in
                                            var params = ck_conv_narrow_params(
                                                m: m, n: n, k: k, taps: taps, indirection: tp.baseAddress, weights: wp.baseAddress,
                                                bias: bp.baseAddress, c: op.baseAddress, c_stride: n,
                                                out_min: -.infinity, out_max: .infinity, prelu: sp.baseAddress)
                                            ck_conv_narrow(&params, nil)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                return out
            }
            assertClose(portable, expected, tolerance: 1e-5, "portable narrow \(m) \(n) \(k) \(taps)")
            for simd in levels { assertClose(simd.result, portable, tolerance: 1e-5, "\(simd.level) narrow \(m) \(n) \(k) \(taps)") }
        }
    }

    /// GEMM with every option: half-precision panels, a residual with its clamp, PReLU.
    func gemmFull(m: Int, n: Int, k: Int, a: [Float], packed: UnsafeRawPointer, f16: Bool, residual: [Float]?,
                  lo: Float, hi: Float, lo2: Float, hi2: Float, prelu: [Float]?, pool: OpaquePointer? = nil) -> [Float] {
        let stride = n + 3
        var c = [Float](repeating: 12345, count: m * stride)
        let slopes = prelu ?? [], res = residual ?? []
        a.withUnsafeBufferPointer { ap in
            slopes.withUnsafeBufferPointer { sp in
                res.withUnsafeBufferPointer { rp in
                    c.withUnsafeMutableBufferPointer { cp in
                        var params = ck_gemm_params(
                            m: m, n: n, k: k, a: ap.baseAddress, a_stride: k, packed: packed, c: cp.baseAddress, c_stride: stride,
                            out_min: lo, out_max: hi, prelu: prelu == nil ? nil : sp.baseAddress,
                            residual: residual == nil ? nil : rp.baseAddress, residual_stride: stride, sum_min: lo2, sum_max: hi2,
                            weights_f16: f16 ? 1 : 0)
                        ck_gemm(&params, pool)
                    }
                }
            }
        }
        return c
    }

    func testHalfPrecisionPanelsAndResidualEpilogue() throws {
        var g = SeededGenerator(seed: 5)
        for (m, n, k) in Self.shapes {
            let a = randomFloats(m * k, &g), bias = randomFloats(n, &g), slopes = randomFloats(n, &g, in: 0...0.5)
            // Weights that are half-precision values: both packings give identical results.
            let w = randomFloats(n * k, &g).map { ($0 * 2048).rounded() / 2048 }
            XCTAssertEqual(w.withUnsafeBufferPointer { ck_f16_exact($0.baseAddress, $0.count) }, 1)
            XCTAssertEqual([Float(0.1)].withUnsafeBufferPointer { ck_f16_exact($0.baseAddress, 1) }, 0)
            let residual = randomFloats(m * (n + 3), &g, in: -4...4)
            let packed32 = pack(n: n, taps: 1, k: k, weights: w, bias: bias)
            let packed16 = packHalf(n: n, taps: 1, k: k, weights: w, bias: bias)
            var expected = reference(m: m, n: n, k: k, a: a, w: w, bias: bias, lo: 0, hi: 6, prelu: nil)
            for i in 0..<m {
                for j in 0..<n {
                    let v = min(max(expected[i * (n + 3) + j] + residual[i * (n + 3) + j], -2), 3)
                    expected[i * (n + 3) + j] = v < 0 ? v * slopes[j] : v
                }
            }
            let (portable, levels) = try portableAndEachSIMD { () -> ([Float], [Float]) in
                let full = packed32.withUnsafeBytes {
                    gemmFull(m: m, n: n, k: k, a: a, packed: $0.baseAddress!, f16: false, residual: residual, lo: 0, hi: 6, lo2: -2, hi2: 3, prelu: slopes)
                }
                let half = packed16.withUnsafeBytes {
                    gemmFull(m: m, n: n, k: k, a: a, packed: $0.baseAddress!, f16: true, residual: residual, lo: 0, hi: 6, lo2: -2, hi2: 3, prelu: slopes)
                }
                return (full, half)
            }
            assertClose(portable.0, expected, tolerance: 1e-5, "portable gemm+residual \(m)x\(n)x\(k)")
            XCTAssertEqual(portable.1, portable.0, "portable half-precision panels \(m)x\(n)x\(k)")
            for simd in levels {
                assertClose(simd.result.0, portable.0, tolerance: 1e-5, "\(simd.level) gemm+residual \(m)x\(n)x\(k)")
                XCTAssertEqual(simd.result.1, simd.result.0, "\(simd.level) half-precision panels \(m)x\(n)x\(k)")
            }
        }
    }

    /// A narrow last panel (at most 8 live outputs) takes its row tiles two at a time; every row
    /// must come out with the bits it has when the rows are computed a tile at a time (the level's
    /// tile height: cut at six at the AVX-512 level, whose tiles are 8 rows, a 19-row GEMM would
    /// end in a single-row tile, whose four partial sums give other bits), with each epilogue,
    /// half-precision panels and threads.
    func testNarrowPanelRowPairsGiveTheBitsOfSingleTiles() throws {
        var g = SeededGenerator(seed: 12)
        for (m, n, k) in [(23, 8, 8), (36, 24, 27), (19, 40, 16), (12, 2, 5), (31, 7, 64)] {
            let a = randomFloats(m * k, &g), bias = randomFloats(n, &g), slopes = randomFloats(n, &g, in: 0...0.5)
            let w = randomFloats(n * k, &g).map { ($0 * 2048).rounded() / 2048 }
            let residual = randomFloats(m * (n + 3), &g, in: -4...4)
            let packed32 = pack(n: n, taps: 1, k: k, weights: w, bias: bias)
            let packed16 = packHalf(n: n, taps: 1, k: k, weights: w, bias: bias)
            let pool = ck_threadpool_create(2)
            defer { ck_threadpool_destroy(pool) }
            for f16 in [false, true] {
                for withResidual in [false, true] {
                    let run = { (rows: Range<Int>, pool: OpaquePointer?) -> [Float] in
                        let call = { (packed: UnsafeRawPointer) in
                            self.gemmFull(m: rows.count, n: n, k: k, a: Array(a[(rows.lowerBound * k)..<(rows.upperBound * k)]), packed: packed,
                                          f16: f16, residual: withResidual ? Array(residual[(rows.lowerBound * (n + 3))..<(rows.upperBound * (n + 3))]) : nil,
                                          lo: -1, hi: 6, lo2: -2, hi2: 3, prelu: slopes, pool: pool)
                        }
                        return f16 ? packed16.withUnsafeBytes { call($0.baseAddress!) } : packed32.withUnsafeBytes { call($0.baseAddress!) }
                    }
                    let (_, levels) = try portableAndEachSIMD { () -> ([Float], [Float], [Float]) in
                        let tileRows = Int(ck_active_isa() == CK_ISA_AVX512 ? CK_GEMM_MR_AVX512 : CK_GEMM_MR)
                        let byTiles = stride(from: 0, to: m, by: tileRows).flatMap { run($0..<min(m, $0 + tileRows), nil) }
                        return (run(0..<m, nil), run(0..<m, pool), byTiles)
                    }
                    for level in levels {
                        let what = "\(level.level) \(m)x\(n)x\(k), f16 \(f16), residual \(withResidual)"
                        XCTAssertEqual(level.result.0, level.result.2, "rows in pairs of tiles against single tiles, \(what)")
                        XCTAssertEqual(level.result.1, level.result.0, "with threads, \(what)")
                    }
                }
            }
        }
    }

    /// Whole row tiles of 1x1 sums over 16 channels have the sum written out; the same GEMM as an
    /// indirect one of two taps of 8 channels (the same 16 steps in the same order, through the
    /// loop) must give the same bits, with float32 and half-precision panels.
    func testUnrolledSumsOfSixteenGiveTheBitsOfTheLoop() throws {
        var g = SeededGenerator(seed: 13)
        for (m, n) in [(61, 64), (30, 24), (13, 96), (7, 40), (6, 16)] {
            let a = randomFloats(m * 16, &g), bias = randomFloats(n, &g), slopes = randomFloats(n, &g, in: 0...0.5)
            let w = randomFloats(n * 16, &g).map { ($0 * 2048).rounded() / 2048 }
            for f16 in [false, true] {
                // Panels of (n, 1 tap, 16) and of (n, 2 taps, 8) hold the same bytes: row r = tap * 8 + channel.
                let packed = f16 ? packHalf(n: n, taps: 1, k: 16, weights: w, bias: bias)
                                 : pack(n: n, taps: 1, k: 16, weights: w, bias: bias).withUnsafeBytes { Array($0) }
                let (_, levels) = try portableAndEachSIMD { () -> ([Float], [Float]) in
                    let direct = packed.withUnsafeBytes {
                        self.gemmFull(m: m, n: n, k: 16, a: a, packed: $0.baseAddress!, f16: f16, residual: nil,
                                      lo: -1, hi: 6, lo2: -.infinity, hi2: .infinity, prelu: slopes)
                    }
                    var indirect = [Float](repeating: 12345, count: m * (n + 3))
                    a.withUnsafeBufferPointer { ap in
                        let rows = (0..<(m * 2)).map { Optional(ap.baseAddress! + $0 * 8) }
                        rows.withUnsafeBufferPointer { table in
                            packed.withUnsafeBytes { wp in
                                slopes.withUnsafeBufferPointer { sp in
                                    indirect.withUnsafeMutableBufferPointer { cp in
                                        var params = ck_igemm_params(m: m, n: n, k: 8, taps: 2, indirection: table.baseAddress,
                                                                     packed: wp.baseAddress, c: cp.baseAddress, c_stride: n + 3,
                                                                     out_min: -1, out_max: 6, prelu: sp.baseAddress,
                                                                     residual: nil, residual_stride: 0, sum_min: -.infinity, sum_max: .infinity,
                                                                     weights_f16: f16 ? 1 : 0)
                                        ck_igemm(&params, nil)
                                    }
                                }
                            }
                        }
                    }
                    return (direct, indirect)
                }
                for level in levels {
                    XCTAssertEqual(level.result.0, level.result.1, "\(level.level) \(m)x\(n)x16, f16 \(f16): unrolled against the loop")
                }
            }
        }
    }

    func testHalfPrecisionConversionOfSpecialValues() {
        // Subnormal halves, the largest half, infinities and signed zeros convert exactly; values
        // between halves, below the smallest subnormal, above the largest half or NaN do not.
        let exact: [Float] = [0, -0.0, 65504, -65504, .infinity, -.infinity, 0x1p-24, 3 * 0x1p-24, 0x1p-14, 1023 * 0x1p-24, 1.5]
        let inexact: [Float] = [0x1p-25, 65520, 1 + 0x1p-11, .nan, 3 * 0x1p-25]
        for value in exact {
            XCTAssertEqual([value].withUnsafeBufferPointer { ck_f16_exact($0.baseAddress, 1) }, 1, "\(value)")
            var packed = [UInt8](repeating: 0, count: ck_conv_packed_bytes_f16(1, 1, 1))
            packed.withUnsafeMutableBytes { ck_conv_pack_f16(1, 1, 1, [value], nil, $0.baseAddress) }
            let half = UInt16(packed[64]) | UInt16(packed[65]) << 8
            var back: Float = 0
            ck_f16_to_f32([half], &back, 1)
            XCTAssertEqual(back.bitPattern, value.bitPattern, "\(value) through half precision")
        }
        for value in inexact {
            XCTAssertEqual([value].withUnsafeBufferPointer { ck_f16_exact($0.baseAddress, 1) }, 0, "\(value)")
        }
    }

    func testDirectNarrowConvolutionMatchesIndirect() throws {
        var g = SeededGenerator(seed: 6)
        // (h, w, n, kernel, stride, pad top, pad left)
        for (h, w, n, kernel, stride, padTop, padLeft) in [(9, 13, 1, 3, 1, 1, 1), (10, 7, 3, 5, 2, 2, 1), (5, 17, 4, 3, 2, 0, 0), (3, 3, 2, 5, 1, 2, 2)] {
            let oh = (h + 2 * padTop - kernel) / stride + 1, ow = (w + 2 * padLeft - kernel) / stride + 1
            let image = randomFloats(h * w * 8, &g), weights = randomFloats(n * kernel * kernel * 8, &g), bias = randomFloats(n, &g)
            let zeros = [Float](repeating: 0, count: 8)
            func run(direct: Bool) -> [Float] {
                var out = [Float](repeating: 0, count: oh * ow * n)
                image.withUnsafeBufferPointer { ip in
                    zeros.withUnsafeBufferPointer { zp in
                        weights.withUnsafeBufferPointer { wp in
                            bias.withUnsafeBufferPointer { bp in
                                out.withUnsafeMutableBufferPointer { op in
                                    if direct {
                                        var p = ck_conv_narrow_direct_params(
                                            batch: 1, in_h: h, in_w: w, out_h: oh, out_w: ow, n: n, kernel: kernel, stride: stride,
                                            pad_top: padTop, pad_left: padLeft, input: ip.baseAddress, weights: wp.baseAddress,
                                            bias: bp.baseAddress, output: op.baseAddress, out_min: -1, out_max: 2, prelu: nil)
                                        XCTAssertEqual(ck_conv_narrow_direct(&p, nil), 1)
                                        return
                                    }
                                    var table: [UnsafePointer<Float>?] = []
                                    for oy in 0..<oh {
                                        for ox in 0..<ow {
                                            for ky in 0..<kernel {
                                                for kx in 0..<kernel {
                                                    let iy = oy * stride + ky - padTop, ix = ox * stride + kx - padLeft
                                                    let inside = iy >= 0 && iy < h && ix >= 0 && ix < w
                                                    table.append(inside ? ip.baseAddress! + (iy * w + ix) * 8 : zp.baseAddress)
                                                }
                                            }
                                        }
                                    }
                                    table.withUnsafeBufferPointer { tp in
                                        var p = ck_conv_narrow_params(
                                            m: oh * ow, n: n, k: 8, taps: kernel * kernel, indirection: tp.baseAddress, weights: wp.baseAddress,
                                            bias: bp.baseAddress, c: op.baseAddress, c_stride: n, out_min: -1, out_max: 2, prelu: nil)
                                        ck_conv_narrow(&p, nil)
                                    }
                                }
                            }
                        }
                    }
                }
                return out
            }
            let (portable, levels) = try portableAndEachSIMD { (run(direct: true), run(direct: false)) }
            assertClose(portable.0, portable.1, tolerance: 1e-5, "portable direct narrow \(h)x\(w) k\(kernel) s\(stride)")
            for simd in levels {
                XCTAssertEqual(simd.result.0, simd.result.1, "\(simd.level) direct narrow equals indirect \(h)x\(w) k\(kernel) s\(stride)")
                assertClose(simd.result.0, portable.0, tolerance: 1e-5, "\(simd.level) direct narrow \(h)x\(w) k\(kernel) s\(stride)")
            }
        }
    }
}
