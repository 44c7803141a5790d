import CKernels
import XCTest

/// `ck_spconv` (sparse 1x1 convolutions) against the dense GEMM on the same weights, the
/// portable kernel against the SIMD one, and thread counts against each other.
final class SparseConvolutionTests: XCTestCase {
    /// Pixel tails (m not a multiple of 8), n and k not multiples of 8, k over one channel
    /// block (CK_SPCONV_CHANNEL_BLOCK), tiles of every vector count.
    static let shapes: [(m: Int, n: Int, k: Int)] = [(1, 9, 20), (7, 8, 8), (49, 24, 100), (67, 13, 300), (200, 40, 37),
                                                     (9, 130, 129), (64, 16, 256), (600, 33, 70)]

    struct Case {
        let m: Int, n: Int, k: Int
        let a: [Float], weights: [Float], bias: [Float], slopes: [Float], residual: [Float]

        init(m: Int, n: Int, k: Int, density: Float, _ g: inout SeededGenerator, test: XCTestCase) {
            self.m = m
            self.n = n
            self.k = k
            a = test.randomFloats(m * k, &g)
            weights = test.randomFloats(n * k, &g).map { Float.random(in: 0..<1, using: &g) < density ? $0 : 0 }
            bias = test.randomFloats(n, &g)
            slopes = test.randomFloats(n, &g, in: 0...0.5)
            residual = test.randomFloats(m * n, &g, in: -3...3)
        }
    }

    /// The options of one run: the clamp, then optionally a residual with its clamp and PReLU.
    struct Epilogue {
        var lo: Float = -.infinity, hi: Float = .infinity
        var residual = false, prelu = false
        static let all = [Epilogue(), Epilogue(lo: 0, hi: 6, prelu: true), Epilogue(lo: -1, hi: 5, residual: true, prelu: true)]
    }

    /// Output rows are padded by 3 columns of sentinels that must stay untouched.
    func sparse(_ c: Case, _ e: Epilogue, pool: OpaquePointer? = nil, threads: Int = 1) -> [Float] {
        let packed = UnsafeMutableRawPointer.allocate(byteCount: ck_spconv_packed_bytes(c.n, c.k, c.weights), alignment: 64)
        defer { packed.deallocate() }
        ck_spconv_pack(c.n, c.k, c.weights, c.bias, packed)
        var scratch = [Float](repeating: 0, count: threads * ck_spconv_scratch_floats(c.n, c.k))
        let stride = c.n + 3
        var out = [Float](repeating: 12345, count: c.m * stride)
        let residual = c.m == 0 ? [] : (0..<c.m).flatMap { i in c.residual[(i * c.n)..<((i + 1) * c.n)] + [0, 0, 0] }
        c.a.withUnsafeBufferPointer { ap in
            c.slopes.withUnsafeBufferPointer { sp in
                residual.withUnsafeBufferPointer { rp in
                    scratch.withUnsafeMutableBufferPointer { scp in
                        out.withUnsafeMutableBufferPointer { op in
                            var p = ck_spconv_params(
                                m: c.m, n: c.n, k: c.k, a: ap.baseAddress, a_stride: c.k, packed: packed, c: op.baseAddress,
                                c_stride: stride, out_min: e.lo, out_max: e.hi, prelu: e.prelu ? sp.baseAddress : nil,
                                residual: e.residual ? rp.baseAddress : nil, residual_stride: stride, sum_min: -2, sum_max: 4,
                                scratch: scp.baseAddress, scratch_slots: threads)
                            ck_spconv(&p, pool)
                        }
                    }
                }
            }
        }
        return out
    }

    /// The same layer through the dense GEMM (ck_gemm) with the zeros in its panels.
    func dense(_ c: Case, _ e: Epilogue) -> [Float] {
        var packed = [Float](repeating: 0, count: ck_conv_packed_size(c.n, 1, c.k))
        ck_conv_pack(c.n, 1, c.k, c.weights, c.bias, &packed)
        let stride = c.n + 3
        var out = [Float](repeating: 12345, count: c.m * stride)
        let residual = (0..<c.m).flatMap { i in c.residual[(i * c.n)..<((i + 1) * c.n)] + [0, 0, 0] }
        c.a.withUnsafeBufferPointer { ap in
            c.slopes.withUnsafeBufferPointer { sp in
                residual.withUnsafeBufferPointer { rp in
                    packed.withUnsafeBufferPointer { wp in
                        out.withUnsafeMutableBufferPointer { op in
                            var p = ck_gemm_params(
                                m: c.m, n: c.n, k: c.k, a: ap.baseAddress, a_stride: c.k, packed: wp.baseAddress,
                                c: op.baseAddress, c_stride: stride, out_min: e.lo, out_max: e.hi,
                                prelu: e.prelu ? sp.baseAddress : nil, residual: e.residual ? rp.baseAddress : nil,
                                residual_stride: stride, sum_min: -2, sum_max: 4, weights_f16: 0)
                            ck_gemm(&p, nil)
                        }
                    }
                }
            }
        }
        return out
    }

    func testSparseMatchesDenseGEMMAndSIMDMatchesPortable() throws {
        var g = SeededGenerator(seed: 14)
        for (m, n, k) in Self.shapes {
            for density: Float in [0.05, 0.25, 0.6] {
                let c = Case(m: m, n: n, k: k, density: density, &g, test: self)
                for e in Epilogue.all {
                    let what = "\(m)x\(n)x\(k) density \(density) \(e)"
                    let (portable, levels) = try portableAndEachSIMD { sparse(c, e) }
                    let expected = dense(c, e)
                    assertClose(portable, expected, tolerance: 1e-5, "portable sparse against dense, \(what)")
                    for simd in levels {
                        assertClose(simd.result, expected, tolerance: 1e-5, "\(simd.level) sparse against dense, \(what)")
                        XCTAssertEqual(simd.result.enumerated().filter { $0.offset % (n + 3) >= n }.map(\.element).allSatisfy { $0 == 12345 },
                                       true, "\(simd.level) wrote past the row, \(what)")
                    }
                }
            }
        }
    }

    func testPackKeepsOnlyNonzeros() {
        let weights: [Float] = [0, 1, 0, 0, 2, 0, -0.0, 3] // 2 outputs x 4 inputs
        XCTAssertEqual(ck_count_nonzero(weights, weights.count), 3, "zeros of either sign are skipped")
        // 64 x 64 weights, every fourth nonzero: 1024 stored with their positions (5 bytes each,
        // grouped 4 output channels at a time with no padding here) take about a third of the
        // dense bytes.
        var quarter = [Float](repeating: 0, count: 64 * 64)
        for i in 0..<quarter.count where i % 4 == (i / 64) % 4 { quarter[i] = Float(1 + i % 7) }
        XCTAssertEqual(ck_count_nonzero(quarter, quarter.count), 1024)
        XCTAssertLessThan(ck_spconv_packed_bytes(64, 64, quarter), 64 * 64 * 4 / 3 + 1024)
    }

    func testThreadCountsGiveIdenticalResults() {
        var g = SeededGenerator(seed: 15)
        // One tile of 49 or 20 pixels with n > k (the input shared by the threads, in groups of
        // 16s that do not divide evenly: 13 and 29 of them) and n < k (tiles of pixels), and
        // several tiles.
        for (m, n, k) in [(49, 96, 200), (300, 40, 64), (49, 200, 48), (49, 464, 112), (20, 1000, 30), (49, 24, 600)] {
            let c = Case(m: m, n: n, k: k, density: 0.25, &g, test: self)
            let e = Epilogue.all[2]
            let single = sparse(c, e)
            for threads in [2, 3] {
                let pool = ck_threadpool_create(Int32(threads))
                XCTAssertNotNil(pool)
                for _ in 0..<10 { XCTAssertEqual(sparse(c, e, pool: pool, threads: threads), single, "\(m)x\(n)x\(k), \(threads) threads") }
                ck_threadpool_destroy(pool)
            }
        }
    }
}
