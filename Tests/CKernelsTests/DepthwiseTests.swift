import CKernels
import XCTest

final class DepthwiseTests: XCTestCase {
    struct Case {
        var h, w, c, kh, kw, stride, dilation, padTop, padLeft, oh, ow: Int
    }

    func reference(_ t: Case, input: [Float], weights: [Float], bias: [Float], lo: Float, hi: Float, prelu: [Float]?) -> [Float] {
        var out = [Float](repeating: 0, count: t.oh * t.ow * t.c)
        for oy in 0..<t.oh {
            for ox in 0..<t.ow {
                for ch in 0..<t.c {
                    var sum = Double(bias[ch])
                    for ky in 0..<t.kh {
                        for kx in 0..<t.kw {
                            let iy = oy * t.stride + ky * t.dilation - t.padTop, ix = ox * t.stride + kx * t.dilation - t.padLeft
                            guard iy >= 0, iy < t.h, ix >= 0, ix < t.w else { continue }
                            sum += Double(input[(iy * t.w + ix) * t.c + ch]) * Double(weights[(ky * t.kw + kx) * t.c + ch])
                        }
                    }
                    var v = min(max(Float(sum), lo), hi)
                    if let prelu, v < 0 { v *= prelu[ch] }
                    out[(oy * t.ow + ox) * t.c + ch] = v
                }
            }
        }
        return out
    }

    /// A random input, weights, bias and PReLU slopes for the case, and the weights packed.
    func randomLayer(_ t: Case, _ g: inout SeededGenerator)
        -> (input: [Float], weights: [Float], bias: [Float], slopes: [Float], packed: [Float]) {
        let input = randomFloats(t.h * t.w * t.c, &g), weights = randomFloats(t.kh * t.kw * t.c, &g), bias = randomFloats(t.c, &g)
        let slopes = randomFloats(t.c, &g, in: 0...0.5)
        var packed = [Float](repeating: .nan, count: ck_dwconv_packed_size(t.c, t.kh * t.kw))
        bias.withUnsafeBufferPointer { ck_dwconv_pack(t.c, t.kh * t.kw, weights, $0.baseAddress, &packed) }
        return (input, weights, bias, slopes, packed)
    }

    /// `lineSpans`: 1 line by line, 0 block by block, -1 as the geometry says.
    func run(_ t: Case, input: [Float], packed: [Float], lo: Float, hi: Float, prelu: [Float]?, pool: OpaquePointer? = nil,
             lineSpans: Int32 = -1) -> [Float] {
        // One extra output pixel of sentinels checks that tails do not write past the tensor.
        var out = [Float](repeating: 777, count: (t.oh * t.ow + 1) * t.c)
        let zeros = [Float](repeating: 0, count: t.c)
        input.withUnsafeBufferPointer { ip in
            packed.withUnsafeBufferPointer { wp in
                zeros.withUnsafeBufferPointer { zp in
                    out.withUnsafeMutableBufferPointer { op in
                        let outBase = op.baseAddress
                        let go = { (sp: UnsafePointer<Float>?) in
                            var p = ck_dwconv_params(batch: 1, in_h: t.h, in_w: t.w, channels: t.c, out_h: t.oh, out_w: t.ow,
                                                     kernel_h: t.kh, kernel_w: t.kw, stride_h: t.stride, stride_w: t.stride,
                                                     dilation_h: t.dilation, dilation_w: t.dilation, pad_top: t.padTop, pad_left: t.padLeft,
                                                     input: ip.baseAddress, packed: wp.baseAddress, zero: zp.baseAddress,
                                                     output: outBase, out_min: lo, out_max: hi, prelu: sp, line_spans: lineSpans)
                            ck_dwconv(&p, pool)
                        }
                        if let prelu { prelu.withUnsafeBufferPointer { go($0.baseAddress) } } else { go(nil) }
                    }
                }
            }
        }
        XCTAssertTrue(out[(t.oh * t.ow * t.c)...].allSatisfy { $0 == 777 }, "depthwise wrote past its output")
        return Array(out[..<(t.oh * t.ow * t.c)])
    }

    func testKernelsAgainstReferenceWithTails() throws {
        var g = SeededGenerator(seed: 11)
        let cases = [
            Case(h: 7, w: 9, c: 21, kh: 3, kw: 3, stride: 1, dilation: 1, padTop: 1, padLeft: 1, oh: 7, ow: 9),
            Case(h: 8, w: 8, c: 16, kh: 3, kw: 3, stride: 2, dilation: 1, padTop: 0, padLeft: 0, oh: 4, ow: 4),
            Case(h: 11, w: 6, c: 37, kh: 5, kw: 5, stride: 1, dilation: 1, padTop: 2, padLeft: 2, oh: 11, ow: 6),
            Case(h: 12, w: 13, c: 5, kh: 5, kw: 5, stride: 2, dilation: 1, padTop: 1, padLeft: 2, oh: 6, ow: 7),
            Case(h: 9, w: 9, c: 3, kh: 3, kw: 2, stride: 1, dilation: 2, padTop: 2, padLeft: 1, oh: 9, ow: 9),
            Case(h: 4, w: 4, c: 1, kh: 1, kw: 1, stride: 1, dilation: 1, padTop: 0, padLeft: 0, oh: 4, ow: 4),
            // Rows of 7, 5, 3 and 8 + 6 output pixels, each tail in one span.
            Case(h: 7, w: 7, c: 16, kh: 5, kw: 5, stride: 1, dilation: 1, padTop: 2, padLeft: 2, oh: 7, ow: 7),
            Case(h: 11, w: 11, c: 8, kh: 3, kw: 3, stride: 2, dilation: 1, padTop: 0, padLeft: 0, oh: 5, ow: 5),
            Case(h: 6, w: 6, c: 16, kh: 5, kw: 5, stride: 2, dilation: 1, padTop: 2, padLeft: 2, oh: 3, ow: 3),
            Case(h: 14, w: 14, c: 8, kh: 3, kw: 3, stride: 1, dilation: 1, padTop: 1, padLeft: 1, oh: 14, ow: 14),
            // Large enough to be shared among threads (smaller layers run on the calling thread),
            // and with few rows, so that threads split the channels.
            Case(h: 16, w: 15, c: 40, kh: 5, kw: 5, stride: 1, dilation: 1, padTop: 2, padLeft: 2, oh: 16, ow: 15),
            Case(h: 3, w: 40, c: 96, kh: 3, kw: 3, stride: 1, dilation: 1, padTop: 1, padLeft: 1, oh: 3, ow: 40),
            // A 7x7 layer as in hand_landmark's last stage: threads take channel groups whole.
            Case(h: 7, w: 7, c: 200, kh: 5, kw: 5, stride: 1, dilation: 1, padTop: 2, padLeft: 2, oh: 7, ow: 7),
        ]
        for t in cases {
            let (input, weights, bias, slopes, packed) = randomLayer(t, &g)
            for (lo, hi, prelu) in [(-Float.infinity, Float.infinity, nil), (0, 6, nil), (-Float.infinity, Float.infinity, slopes)] as [(Float, Float, [Float]?)] {
                let expected = reference(t, input: input, weights: weights, bias: bias, lo: lo, hi: hi, prelu: prelu)
                let (portable, levels) = try portableAndEachSIMD { run(t, input: input, packed: packed, lo: lo, hi: hi, prelu: prelu) }
                assertClose(portable, expected, tolerance: 1e-5, "portable depthwise \(t)")
                for simd in levels { assertClose(simd.result, portable, tolerance: 1e-5, "\(simd.level) depthwise \(t)") }
                // Every SIMD level sums the taps in the same order: the same bits.
                for simd in levels.dropFirst() { XCTAssertEqual(simd.result, levels[0].result, "\(simd.level) against \(levels[0].level), depthwise \(t)") }
                // With threads, few rows are split into channel groups: same result.
                let pool = ck_threadpool_create(3)
                let (portableThreaded, levelsThreaded) = try portableAndEachSIMD {
                    run(t, input: input, packed: packed, lo: lo, hi: hi, prelu: prelu, pool: pool)
                }
                ck_threadpool_destroy(pool)
                XCTAssertEqual(portableThreaded, portable, "threaded portable depthwise \(t)")
                for (threaded, single) in zip(levelsThreaded, levels) {
                    XCTAssertEqual(threaded.result, single.result, "threaded \(single.level) depthwise \(t)")
                }
            }
        }
    }

    /// Line by line (pairs of blocks, spans of up to 4 pixels) and block by block (spans of 8) sum
    /// every output's taps in the same order: the same bits, at every SIMD level, with and without
    /// threads; and the layers the geometry sends line by line are the ones the rule names.
    func testLineSpansGiveTheBitsOfBlockSpans() throws {
        var g = SeededGenerator(seed: 29)
        let cases = [
            // Wide rows (line by line by default), rows of 14 (4 + 4 + 3 + 3) and of 1 to 7 pixels.
            Case(h: 9, w: 26, c: 32, kh: 5, kw: 5, stride: 1, dilation: 1, padTop: 2, padLeft: 2, oh: 9, ow: 26),
            Case(h: 6, w: 14, c: 48, kh: 3, kw: 3, stride: 1, dilation: 1, padTop: 1, padLeft: 1, oh: 6, ow: 14),
            Case(h: 5, w: 7, c: 16, kh: 5, kw: 5, stride: 1, dilation: 1, padTop: 2, padLeft: 2, oh: 5, ow: 7),
            Case(h: 4, w: 2, c: 32, kh: 3, kw: 3, stride: 1, dilation: 1, padTop: 1, padLeft: 1, oh: 4, ow: 2),
            Case(h: 5, w: 5, c: 24, kh: 5, kw: 5, stride: 1, dilation: 1, padTop: 2, padLeft: 2, oh: 5, ow: 5),
            // Stride 2, with the padding on either side, and 12 output columns (line by line).
            Case(h: 13, w: 25, c: 32, kh: 5, kw: 5, stride: 2, dilation: 1, padTop: 1, padLeft: 2, oh: 6, ow: 12),
            Case(h: 8, w: 11, c: 40, kh: 3, kw: 3, stride: 2, dilation: 1, padTop: 0, padLeft: 1, oh: 4, ow: 6),
            // A pixel of 256 channels (1 KiB): a 12-pixel row's span maps to 4 L1 sets.
            Case(h: 6, w: 12, c: 256, kh: 5, kw: 5, stride: 1, dilation: 1, padTop: 2, padLeft: 2, oh: 6, ow: 12),
        ]
        for t in cases {
            let (input, weights, bias, slopes, packed) = randomLayer(t, &g)
            for (lo, hi, prelu) in [(-Float.infinity, Float.infinity, nil), (-1, 1, slopes)] as [(Float, Float, [Float]?)] {
                let expected = reference(t, input: input, weights: weights, bias: bias, lo: lo, hi: hi, prelu: prelu)
                for threads in [1, 3] {
                    let pool = threads > 1 ? ck_threadpool_create(Int32(threads)) : nil
                    defer { if let pool { ck_threadpool_destroy(pool) } }
                    let (_, blocks) = try portableAndEachSIMD {
                        run(t, input: input, packed: packed, lo: lo, hi: hi, prelu: prelu, pool: pool, lineSpans: 0)
                    }
                    let (_, lines) = try portableAndEachSIMD {
                        run(t, input: input, packed: packed, lo: lo, hi: hi, prelu: prelu, pool: pool, lineSpans: 1)
                    }
                    for (byLines, byBlocks) in zip(lines, blocks) {
                        assertClose(byLines.result, expected, tolerance: 1e-5, "\(byLines.level) depthwise line by line \(t)")
                        XCTAssertEqual(byLines.result, byBlocks.result, "\(byLines.level) depthwise line by line against block by block, \(threads) threads, \(t)")
                    }
                }
            }
        }
    }

    func testWhichLayersRunLineByLine() {
        func usesLines(_ h: Int, _ w: Int, _ c: Int, kernel: Int, stride: Int) -> Bool {
            let out = stride == 1 ? w : w / 2
            var p = ck_dwconv_params(batch: 1, in_h: h, in_w: w, channels: c, out_h: stride == 1 ? h : h / 2, out_w: out,
                                     kernel_h: kernel, kernel_w: kernel, stride_h: stride, stride_w: stride,
                                     dilation_h: 1, dilation_w: 1, pad_top: 0, pad_left: 0,
                                     input: nil, packed: nil, zero: nil, output: nil, out_min: 0, out_max: 0, prelu: nil, line_spans: -1)
            return ck_dwconv_line_spans(&p) != 0
        }
        XCTAssertTrue(usesLines(96, 96, 32, kernel: 5, stride: 1), "wide rows")
        XCTAssertTrue(usesLines(24, 24, 128, kernel: 5, stride: 2), "stride 2, 12 output columns")
        XCTAssertTrue(usesLines(12, 12, 256, kernel: 5, stride: 1), "a span whose lines share L1 sets")
        XCTAssertTrue(usesLines(7, 7, 512, kernel: 3, stride: 1), "a span whose lines share L1 sets")
        XCTAssertFalse(usesLines(6, 6, 256, kernel: 5, stride: 1), "at most 8 lines in a set")
        XCTAssertFalse(usesLines(14, 14, 672, kernel: 5, stride: 1), "a narrow row without conflicts")
        XCTAssertFalse(usesLines(112, 112, 24, kernel: 3, stride: 1), "channels ending in half a line")
        XCTAssertFalse(usesLines(20, 20, 32, kernel: 3, stride: 2), "stride 2, 10 output columns, no conflicts")
    }
}
