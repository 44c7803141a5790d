import CKernels
import XCTest

/// ck_expand_dwconv against ck_gemm then ck_dwconv: the same bits for every geometry, band
/// height (or groups of channels), weight precision and thread count, and nothing written past
/// the output or the scratch.
final class ExpansionDepthwiseTests: XCTestCase {
    struct Case {
        var h, w, k, c, kernel, stride, dilation, padTop, padLeft: Int
        var outH: Int { (h + 2 * padTop - (kernel - 1) * dilation - 1) / stride + 1 }
        var outW: Int { (w + 2 * padLeft - (kernel - 1) * dilation - 1) / stride + 1 }
    }

    /// Runs the case both ways: the fused kernel in bands of `bandRows` (or by channels) on
    /// `pool`, and the two kernels one after the other on the calling thread. With `halfWeights`
    /// the expansion's weights are half-precision values in half-precision panels; with `sparse`
    /// three in four are zero and the expansion is ck_spconv's. Returns (fused, separate).
    func run(_ t: Case, bandRows: Int, byChannels: Bool = false, halfWeights: Bool = false, sparse: Bool = false,
             pool: OpaquePointer?, threads: Int, seed: UInt64) -> ([Float], [Float]) {
        var g = SeededGenerator(seed: seed)
        let input = randomFloats(t.h * t.w * t.k, &g), expandBias = randomFloats(t.c, &g)
        var expandWeights = randomFloats(t.c * t.k, &g)
        if halfWeights { expandWeights = expandWeights.map { Float(Float16($0)) } }
        if sparse { expandWeights = expandWeights.map { g.next() % 4 == 0 ? $0 : 0 } }
        // The sparse layout's parts are 32-byte aligned.
        let sparsePacked = UnsafeMutableRawPointer.allocate(byteCount: max(ck_spconv_packed_bytes(t.c, t.k, expandWeights), 1), alignment: 64)
        defer { sparsePacked.deallocate() }
        if sparse { ck_spconv_pack(t.c, t.k, expandWeights, expandBias, sparsePacked) }
        // ck_spconv's scratch for each thread, for the separate run and the fused one.
        let sparseScratch = UnsafeMutablePointer<Float>.allocate(capacity: threads * ck_spconv_scratch_floats(t.c, t.k))
        defer { sparseScratch.deallocate() }
        let dwWeights = randomFloats(t.kernel * t.kernel * t.c, &g), dwBias = randomFloats(t.c, &g)
        let slopes = randomFloats(t.c, &g, in: 0...0.5)
        var expandPacked = [Float](repeating: .nan, count: ck_conv_packed_size(t.c, 1, t.k))
        if halfWeights {
            expandPacked = [Float](repeating: .nan, count: (ck_conv_packed_bytes_f16(t.c, 1, t.k) + 3) / 4)
            expandPacked.withUnsafeMutableBytes { ck_conv_pack_f16(t.c, 1, t.k, expandWeights, expandBias, $0.baseAddress) }
        } else {
            ck_conv_pack(t.c, 1, t.k, expandWeights, expandBias, &expandPacked)
        }
        var dwPacked = [Float](repeating: .nan, count: ck_dwconv_packed_size(t.c, t.kernel * t.kernel))
        ck_dwconv_pack(t.c, t.kernel * t.kernel, dwWeights, dwBias, &dwPacked)
        let zeros = [Float](repeating: 0, count: t.c)
        // One extra output pixel of sentinels: nothing may be written past the tensor.
        let outCount = t.outH * t.outW * t.c
        var fused = [Float](repeating: 777, count: outCount + t.c), separate = fused
        var expanded = [Float](repeating: .nan, count: t.h * t.w * t.c)
        input.withUnsafeBufferPointer { x in
            expandPacked.withUnsafeBufferPointer { ep in
                dwPacked.withUnsafeBufferPointer { dp in
                    zeros.withUnsafeBufferPointer { zp in
                        slopes.withUnsafeBufferPointer { sp in
                            var gemm = ck_gemm_params(m: t.h * t.w, n: t.c, k: t.k, a: x.baseAddress, a_stride: t.k,
                                                      packed: ep.baseAddress, c: nil, c_stride: t.c, out_min: -1.5, out_max: 6,
                                                      prelu: nil, residual: nil, residual_stride: 0, sum_min: -.infinity,
                                                      sum_max: .infinity, weights_f16: halfWeights ? 1 : 0)
                            var dw = ck_dwconv_params(batch: 1, in_h: t.h, in_w: t.w, channels: t.c, out_h: t.outH, out_w: t.outW,
                                                      kernel_h: t.kernel, kernel_w: t.kernel, stride_h: t.stride, stride_w: t.stride,
                                                      dilation_h: t.dilation, dilation_w: t.dilation, pad_top: t.padTop,
                                                      pad_left: t.padLeft, input: nil, packed: dp.baseAddress, zero: zp.baseAddress,
                                                      output: nil, out_min: -4, out_max: 4, prelu: sp.baseAddress, line_spans: -1)
                            dw.line_spans = ck_dwconv_line_spans(&dw)
                            func sparseParams(_ c: UnsafeMutablePointer<Float>?) -> ck_spconv_params {
                                ck_spconv_params(m: t.h * t.w, n: t.c, k: t.k, a: x.baseAddress, a_stride: t.k, packed: sparsePacked, c: c,
                                                 c_stride: t.c, out_min: -1.5, out_max: 6, prelu: nil, residual: nil, residual_stride: 0,
                                                 sum_min: -.infinity, sum_max: .infinity, scratch: sparseScratch, scratch_slots: threads)
                            }
                            // Separately, on the calling thread.
                            expanded.withUnsafeMutableBufferPointer { e in
                                separate.withUnsafeMutableBufferPointer { o in
                                    if sparse {
                                        var first = sparseParams(e.baseAddress)
                                        ck_spconv(&first, nil)
                                    } else {
                                        var first = gemm
                                        first.c = e.baseAddress
                                        ck_gemm(&first, nil)
                                    }
                                    var second = dw
                                    second.input = UnsafePointer(e.baseAddress)
                                    second.output = o.baseAddress
                                    ck_dwconv(&second, nil)
                                }
                            }
                            // Together.
                            let slotFloats = ck_expand_dwconv_scratch_floats(&dw, byChannels ? 1 : 0, bandRows)
                            // Sentinels after the last slot: a window must stay within its part.
                            var scratch = [Float](repeating: .nan, count: threads * slotFloats + 64)
                            for i in threads * slotFloats..<scratch.count { scratch[i] = 555 }
                            fused.withUnsafeMutableBufferPointer { o in
                                scratch.withUnsafeMutableBufferPointer { s in
                                    gemm.c = nil
                                    dw.output = o.baseAddress
                                    var p = ck_expand_dwconv_params(expand: gemm, sparse_expand: sparse ? sparseParams(nil) : ck_spconv_params(),
                                                                    sparse: sparse ? 1 : 0,
                                                                    depthwise: dw, by_channels: byChannels ? 1 : 0,
                                                                    band_rows: bandRows, scratch: s.baseAddress, scratch_slots: threads)
                                    ck_expand_dwconv(&p, pool)
                                }
                            }
                            XCTAssertEqual(Array(scratch[(threads * slotFloats)...]), [Float](repeating: 555, count: 64), "written past the scratch")
                        }
                    }
                }
            }
        }
        XCTAssertEqual(Array(fused[outCount...]), [Float](repeating: 777, count: t.c), "written past the output")
        return (fused, separate)
    }

    /// Fails with the number of differing values and the first of them, not both arrays.
    func assertSameBits(_ a: [Float], _ b: [Float], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, message, file: file, line: line)
        let differing = zip(a, b).enumerated().filter { $0.element.0.bitPattern != $0.element.1.bitPattern }
        if let first = differing.first {
            XCTFail("\(message): \(differing.count) of \(a.count) values differ, first at \(first.offset): \(first.element.0) against \(first.element.1)",
                    file: file, line: line)
        }
    }

    /// Runs `body` with no pool (one thread), then with pools of 2 and 3 threads.
    func forEachPool(_ body: (OpaquePointer?, Int) -> Void) {
        for threads in [1, 2, 3] {
            let pool = threads > 1 ? ck_threadpool_create(Int32(threads)) : nil
            defer { if let pool { ck_threadpool_destroy(pool) } }
            body(pool, threads)
        }
    }

    func testMatchesTheTwoKernelsBitForBit() {
        let cases = [
            Case(h: 23, w: 18, k: 16, c: 64, kernel: 3, stride: 2, dilation: 1, padTop: 0, padLeft: 0),
            Case(h: 24, w: 24, k: 16, c: 64, kernel: 3, stride: 2, dilation: 1, padTop: 1, padLeft: 1),
            Case(h: 17, w: 13, k: 8, c: 48, kernel: 3, stride: 1, dilation: 1, padTop: 1, padLeft: 1),
            Case(h: 19, w: 11, k: 24, c: 32, kernel: 5, stride: 1, dilation: 1, padTop: 2, padLeft: 2),
            Case(h: 20, w: 20, k: 12, c: 40, kernel: 5, stride: 2, dilation: 1, padTop: 1, padLeft: 2),
            Case(h: 15, w: 9, k: 5, c: 21, kernel: 3, stride: 1, dilation: 2, padTop: 2, padLeft: 2),
            Case(h: 9, w: 7, k: 16, c: 16, kernel: 3, stride: 1, dilation: 1, padTop: 0, padLeft: 0),
        ]
        forEachPool { pool, threads in
            for (index, t) in cases.enumerated() {
                for bandRows in [0, 1, 2, 3, t.outH] {
                    let (fused, separate) = run(t, bandRows: bandRows, pool: pool, threads: threads, seed: UInt64(40 + index))
                    assertSameBits(fused, separate, "case \(index), \(threads) threads, bands of \(bandRows) rows")
                }
            }
        }
    }

    /// Small images in groups of channels: channel counts that end in a whole group, a single
    /// panel and a part of a panel, counts of panels that no number of groups divides (29 and 5
    /// panels of 16), float32 and half-precision panels and sparse weights, one to three threads.
    func testGroupsOfChannelsMatchTheTwoKernelsBitForBit() {
        let cases = [
            Case(h: 7, w: 7, k: 24, c: 96, kernel: 5, stride: 1, dilation: 1, padTop: 2, padLeft: 2),
            Case(h: 7, w: 7, k: 16, c: 48, kernel: 3, stride: 1, dilation: 1, padTop: 1, padLeft: 1),
            Case(h: 8, w: 8, k: 32, c: 72, kernel: 5, stride: 2, dilation: 1, padTop: 1, padLeft: 1),
            Case(h: 6, w: 5, k: 7, c: 21, kernel: 3, stride: 1, dilation: 2, padTop: 2, padLeft: 2),
            Case(h: 3, w: 9, k: 40, c: 200, kernel: 3, stride: 1, dilation: 1, padTop: 1, padLeft: 1),
            Case(h: 7, w: 7, k: 24, c: 464, kernel: 3, stride: 1, dilation: 1, padTop: 1, padLeft: 1),
            Case(h: 4, w: 4, k: 8, c: 80, kernel: 3, stride: 1, dilation: 1, padTop: 1, padLeft: 1),
        ]
        forEachPool { pool, threads in
            for (index, t) in cases.enumerated() {
                for (halfWeights, sparse) in [(false, false), (true, false), (false, true)] {
                    let (fused, separate) = run(t, bandRows: 0, byChannels: true, halfWeights: halfWeights, sparse: sparse, pool: pool,
                                                threads: threads, seed: UInt64(70 + index))
                    assertSameBits(fused, separate, "case \(index), \(threads) threads, half-precision weights \(halfWeights), sparse \(sparse)")
                }
            }
        }
        var d = ck_dwconv_params()
        d.in_h = 7; d.in_w = 7; d.channels = 21
        XCTAssertEqual(ck_expand_dwconv_scratch_floats(&d, 1, 0), 49 * 21, "the expanded image")
    }

    func testWindowsStayWithinTheirScratch() {
        // A whole image in one band, and bands of one row of a 1-row-tall window (stride 3 > kernel).
        let t = Case(h: 12, w: 10, k: 8, c: 16, kernel: 1, stride: 3, dilation: 1, padTop: 0, padLeft: 0)
        for bandRows in [0, 1, 2, t.outH, t.outH + 5] {
            let (fused, separate) = run(t, bandRows: bandRows, pool: nil, threads: 1, seed: 60)
            assertSameBits(fused, separate, "bands of \(bandRows) rows")
        }
        var d = ck_dwconv_params()
        d.in_h = 12; d.in_w = 10; d.channels = 16; d.out_h = 4; d.out_w = 4; d.kernel_h = 1; d.kernel_w = 1
        d.stride_h = 3; d.stride_w = 3; d.dilation_h = 1; d.dilation_w = 1
        // A band of one row needs one row of 10 pixels x 16 channels, of all 4 rows 10 rows; each
        // slot also has room for GEMM tiles on either side, in whole 64-byte lines.
        for (bandRows, rows) in [(1, 1), (4, 10), (100, 10)] {
            let floats = ck_expand_dwconv_scratch_floats(&d, 0, bandRows)
            XCTAssertGreaterThanOrEqual(floats, rows * 160, "bands of \(bandRows) rows")
            XCTAssertLessThanOrEqual(floats, (rows * 10 + 2 * 8) * 16 + 15, "bands of \(bandRows) rows")
            XCTAssertEqual(floats % 16, 0)
        }
    }
}
