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
                let (portable, simd) = try portableAndDetected { gemm(m: m, n: n, k: k, a: a, packed: packed, lo: lo, hi: hi, prelu: prelu) }
                assertClose(portable, expected, tolerance: 1e-5, "portable gemm \(m)x\(n)x\(k)")
                assertClose(simd, portable, tolerance: 1e-5, "simd gemm \(m)x\(n)x\(k)")
            }
        }
    }

    func testThreadPoolGivesIdenticalResults() {
        var g = SeededGenerator(seed: 2)
        let (m, n, k) = (97, 70, 45)
        let a = randomFloats(m * k, &g), w = randomFloats(n * k, &g)
        let packed = pack(n: n, taps: 1, k: k, weights: w, bias: nil)
        let single = gemm(m: m, n: n, k: k, a: a, packed: packed, lo: -.infinity, hi: .infinity, prelu: nil)
        for threads in [2, 3, 4] {
            let pool = ck_threadpool_create(Int32(threads))
            XCTAssertNotNil(pool)
            XCTAssertEqual(ck_threadpool_thread_count(pool), Int32(threads))
            for _ in 0..<20 {
                XCTAssertEqual(gemm(m: m, n: n, k: k, a: a, packed: packed, lo: -.infinity, hi: .infinity, prelu: nil, pool: pool), single)
            }
            ck_threadpool_destroy(pool)
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
        let (portable, simd) = try portableAndDetected { () -> [Float] in
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
        assertClose(simd, portable, tolerance: 1e-5, "simd igemm")
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
            let (portable, simd) = try portableAndDetected { () -> [Float] in
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
            assertClose(simd, portable, tolerance: 1e-5, "simd narrow \(m) \(n) \(k) \(taps)")
        }
    }
}
