import CKernels
import Foundation
import XCTest

final class SpatialTests: XCTestCase {
    func testMaxPoolSIMDMatchesPortableAndSkipsPadding() throws {
        var g = SeededGenerator(seed: 31)
        let (h, w, c) = (7, 5, 19)
        let input = randomFloats(h * w * c, &g, in: -2 ... -1) // all negative: padding must not count as 0
        let (oh, ow) = (4, 3) // 2x2 stride 2, SAME: pads one row/column at the end
        func run() -> [Float] {
            var out = [Float](repeating: 0, count: oh * ow * c)
            input.withUnsafeBufferPointer { ip in
                out.withUnsafeMutableBufferPointer { op in
                    var p = ck_pool_params(batch: 1, in_h: h, in_w: w, channels: c, out_h: oh, out_w: ow, filter_h: 2, filter_w: 2,
                                           stride_h: 2, stride_w: 2, pad_top: 0, pad_left: 0, input: ip.baseAddress,
                                           output: op.baseAddress, out_min: -.infinity, out_max: .infinity)
                    ck_maxpool(&p, nil)
                }
            }
            return out
        }
        let (portable, levels) = try portableAndEachSIMD(run)
        for simd in levels { XCTAssertEqual(simd.result, portable, "\(simd.level) max pool") }
        for oy in 0..<oh {
            for ox in 0..<ow {
                for ch in 0..<c {
                    var m = -Float.infinity
                    for y in (oy * 2)..<min(oy * 2 + 2, h) { for x in (ox * 2)..<min(ox * 2 + 2, w) { m = max(m, input[(y * w + x) * c + ch]) } }
                    XCTAssertEqual(portable[(oy * ow + ox) * c + ch], m)
                }
            }
        }
    }

    /// The SIMD max pool keeps each block of 8 channels' maximum in a register: every channel
    /// count (blocks only, blocks and a tail, a tail only), padding on the top and left, a clamp,
    /// and the values whose order matters (NaN, both zeros) must give the portable loop's bits.
    func testMaxPoolBlocksGiveThePortableBits() throws {
        var g = SeededGenerator(seed: 32)
        for c in [3, 8, 16, 19] {
            for (k, pad, lo, hi) in [(2, 0, -Float.infinity, Float.infinity), (3, 1, Float(-0.5), Float(0.75))] {
                let (h, w) = (9, 11)
                var input = randomFloats(h * w * c, &g, in: -1...1)
                for i in stride(from: 0, to: input.count, by: 7) { input[i] = [Float.nan, 0, -0.0, -Float.infinity][(i / 7) % 4] }
                let (oh, ow) = ((h + 2 * pad - k) / 2 + 1, (w + 2 * pad - k) / 2 + 1)
                func run() -> [UInt32] {
                    var out = [Float](repeating: 12345, count: oh * ow * c)
                    input.withUnsafeBufferPointer { ip in
                        out.withUnsafeMutableBufferPointer { op in
                            var p = ck_pool_params(batch: 1, in_h: h, in_w: w, channels: c, out_h: oh, out_w: ow, filter_h: k, filter_w: k,
                                                   stride_h: 2, stride_w: 2, pad_top: pad, pad_left: pad, input: ip.baseAddress,
                                                   output: op.baseAddress, out_min: lo, out_max: hi)
                            ck_maxpool(&p, nil)
                        }
                    }
                    return out.map(\.bitPattern)
                }
                let (portable, levels) = try portableAndEachSIMD(run)
                XCTAssertFalse(portable.contains(Float(12345).bitPattern), "\(k)x\(k) c \(c): an output left unwritten")
                for simd in levels { XCTAssertEqual(simd.result, portable, "\(simd.level) max pool \(k)x\(k) c \(c)") }
            }
        }
    }

    /// TensorFlow's conventions, written out independently.
    func referenceResize(_ input: [Float], h: Int, w: Int, c: Int, oh: Int, ow: Int, align: Bool, half: Bool) -> [Float] {
        func scale(_ i: Int, _ o: Int) -> Float { align && o > 1 ? Float(i - 1) / Float(o - 1) : Float(i) / Float(o) }
        func source(_ v: Int, _ s: Float, _ size: Int) -> (Float, Int, Int) {
            let f = half ? (Float(v) + 0.5) * s - 0.5 : Float(v) * s
            return (f, max(Int(f.rounded(.down)), 0), min(Int(f.rounded(.up)), size - 1))
        }
        var out = [Float]()
        for y in 0..<oh {
            let (fy, y0, y1) = source(y, scale(h, oh), h)
            for x in 0..<ow {
                let (fx, x0, x1) = source(x, scale(w, ow), w)
                for ch in 0..<c {
                    let dy = fy - Float(y0), dx = fx - Float(x0)
                    let v = input[(y0 * w + x0) * c + ch] * (1 - dy) * (1 - dx) + input[(y1 * w + x0) * c + ch] * dy * (1 - dx)
                        + input[(y0 * w + x1) * c + ch] * (1 - dy) * dx + input[(y1 * w + x1) * c + ch] * dy * dx
                    out.append(v)
                }
            }
        }
        return out
    }

    /// ck_resize_bilinear on one image of h x w x c into oh x ow, clamped to [lo, hi].
    func resize(_ input: [Float], h: Int, w: Int, c: Int, oh: Int, ow: Int, align: Bool, half: Bool, lo: Float, hi: Float) -> [Float] {
        var out = [Float](repeating: 0, count: oh * ow * c)
        input.withUnsafeBufferPointer { ip in
            out.withUnsafeMutableBufferPointer { op in
                var p = ck_resize_params(batch: 1, in_h: h, in_w: w, channels: c, out_h: oh, out_w: ow,
                                         align_corners: align ? 1 : 0, half_pixel_centers: half ? 1 : 0,
                                         input: ip.baseAddress, output: op.baseAddress, out_min: lo, out_max: hi)
                ck_resize_bilinear(&p, nil)
            }
        }
        return out
    }

    /// Channels in whole vectors of 8 run a kernel of their own at the AVX2 level; each channel
    /// must come out with the bits the general loop gives it (the same image with one more
    /// channel takes the general loop), with and without the clamp, and match the reference.
    func testResizeOfWholeVectorsGivesTheBitsOfTheGeneralLoop() throws {
        var g = SeededGenerator(seed: 33)
        let (h, w, oh, ow, c) = (5, 7, 11, 13, 16)
        let wide = randomFloats(h * w * (c + 1), &g, in: -3...3)
        let narrow = (0..<(h * w)).flatMap { Array(wide[($0 * (c + 1))..<($0 * (c + 1) + c)]) }
        func run(_ input: [Float], channels: Int, align: Bool, half: Bool, clamp: Bool) -> [Float] {
            resize(input, h: h, w: w, c: channels, oh: oh, ow: ow, align: align, half: half,
                   lo: clamp ? -1 : -.infinity, hi: clamp ? 2 : .infinity)
        }
        for (align, half) in [(false, false), (true, false), (false, true)] {
            for clamp in [false, true] {
                let (_, levels) = try portableAndEachSIMD { () -> ([Float], [Float]) in
                    (run(narrow, channels: c, align: align, half: half, clamp: clamp),
                     run(wide, channels: c + 1, align: align, half: half, clamp: clamp))
                }
                var expected = referenceResize(narrow, h: h, w: w, c: c, oh: oh, ow: ow, align: align, half: half)
                if clamp { expected = expected.map { min(max($0, -1), 2) } }
                for level in levels {
                    let general = (0..<(oh * ow)).flatMap { Array(level.result.1[($0 * (c + 1))..<($0 * (c + 1) + c)]) }
                    XCTAssertEqual(level.result.0, general, "\(level.level) resize of 16 channels against 17, align \(align) half \(half) clamp \(clamp)")
                    assertClose(level.result.0, expected, tolerance: 1e-5, "\(level.level) resize of 16 channels")
                }
            }
        }
    }

    func testResizeBilinearConventions() throws {
        var g = SeededGenerator(seed: 32)
        for (h, w, oh, ow) in [(3, 4, 6, 8), (5, 5, 3, 7), (1, 2, 4, 4)] {
            let c = 3
            let input = randomFloats(h * w * c, &g)
            for (align, half) in [(false, false), (true, false), (false, true)] {
                func run() -> [Float] {
                    resize(input, h: h, w: w, c: c, oh: oh, ow: ow, align: align, half: half, lo: -.infinity, hi: .infinity)
                }
                let (portable, levels) = try portableAndEachSIMD(run)
                let expected = referenceResize(input, h: h, w: w, c: c, oh: oh, ow: ow, align: align, half: half)
                assertClose(portable, expected, tolerance: 1e-6, "resize \(h)x\(w)->\(oh)x\(ow) align \(align) half \(half)")
                for simd in levels { assertClose(simd.result, portable, tolerance: 1e-6, "\(simd.level) resize") }
            }
        }
        // align_corners keeps the corners exactly.
        let corners: [Float] = [1, 2, 3, 4]
        var out = [Float](repeating: 0, count: 9)
        corners.withUnsafeBufferPointer { ip in
            out.withUnsafeMutableBufferPointer { op in
                var p = ck_resize_params(batch: 1, in_h: 2, in_w: 2, channels: 1, out_h: 3, out_w: 3, align_corners: 1,
                                         half_pixel_centers: 0, input: ip.baseAddress, output: op.baseAddress,
                                         out_min: -.infinity, out_max: .infinity)
                ck_resize_bilinear(&p, nil)
            }
        }
        XCTAssertEqual(out, [1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4])
        // The clamp (a convolution's activation run after the resize instead of before).
        corners.withUnsafeBufferPointer { ip in
            out.withUnsafeMutableBufferPointer { op in
                var p = ck_resize_params(batch: 1, in_h: 2, in_w: 2, channels: 1, out_h: 3, out_w: 3, align_corners: 1,
                                         half_pixel_centers: 0, input: ip.baseAddress, output: op.baseAddress,
                                         out_min: 1.75, out_max: 3.25)
                ck_resize_bilinear(&p, nil)
            }
        }
        XCTAssertEqual(out, [1.75, 1.75, 2, 2, 2.5, 3, 3, 3.25, 3.25])
    }

    /// Copies and paddings large enough to be split over threads (above CK_PARALLEL_MIN_WORK
    /// elements) give, at 2 and 3 threads, the values an element-by-element loop gives.
    func testCopiesAndPaddingsSplitOverThreadsGiveEveryValue() throws {
        let (h, w, block, oc) = (28, 30, 2, 24), c = block * block * oc
        let input = (0..<(h * w * c)).map { Float($0 % 9973) - 4000 }
        // DEPTH_TO_SPACE's view (out[y][dy][x][dx][k] = in[y][x][(dy * block + dx) * oc + k]),
        // and the same with the columns reversed (a negative stride).
        let dims = [h, block, w, block, oc]
        var depthToSpace = [Float](repeating: .nan, count: input.count)
        for y in 0..<h { for dy in 0..<block { for x in 0..<w { for dx in 0..<block { for k in 0..<oc {
            depthToSpace[(((y * block + dy) * w + x) * block + dx) * oc + k] = input[(y * w + x) * c + (dy * block + dx) * oc + k]
        } } } } }
        var reversed = depthToSpace
        for y in 0..<h { for dy in 0..<block { for x in 0..<w { for dx in 0..<block { for k in 0..<oc {
            reversed[(((y * block + dy) * w + x) * block + dx) * oc + k] = input[(y * w + (w - 1 - x)) * c + (dy * block + dx) * oc + k]
        } } } } }
        // Padding [1, 50, 40, 30] by (0, 2, 1, 1) before and (0, 1, 3, 3) after, with 0.5.
        let padIn = [1, 50, 40, 30], padOut = [1, 53, 44, 34], before = [0, 2, 1, 1]
        let padInput = Array(input.prefix(padIn.reduce(1, *)))
        var padded = [Float](repeating: 0.5, count: padOut.reduce(1, *))
        for y in 0..<padIn[1] { for x in 0..<padIn[2] { for k in 0..<padIn[3] {
            padded[((y + before[1]) * padOut[2] + x + before[2]) * padOut[3] + k + before[3]] = padInput[(y * padIn[2] + x) * padIn[3] + k]
        } } }
        XCTAssertGreaterThan(padded.count, 65536)
        for threads in [1, 2, 3] {
            let pool = try XCTUnwrap(ck_threadpool_create(Int32(threads)))
            defer { ck_threadpool_destroy(pool) }
            var out = [Float](repeating: .nan, count: input.count)
            input.withUnsafeBufferPointer { ck_copy_strided(5, dims, $0.baseAddress, [w * c, block * oc, c, oc, 1], &out, pool) }
            XCTAssertEqual(out, depthToSpace, "depth to space, \(threads) threads")
            input.withUnsafeBufferPointer {
                ck_copy_strided(5, dims, $0.baseAddress! + (w - 1) * c, [w * c, block * oc, -c, oc, 1], &out, pool)
            }
            XCTAssertEqual(out, reversed, "reversed columns, \(threads) threads")
            var pad = [Float](repeating: .nan, count: padded.count)
            ck_pad_4d(padInput, padIn, &pad, padOut, before, 0.5, pool)
            XCTAssertEqual(pad, padded, "padding, \(threads) threads")
        }
    }

    func testPadCopyAndReduce() {
        let input: [Float] = [1, 2, 3, 4, 5, 6] // [1, 1, 2, 3]
        var out = [Float](repeating: 9, count: 1 * 2 * 3 * 4)
        ck_pad_4d(input, [1, 1, 2, 3], &out, [1, 2, 3, 4], [0, 1, 0, 1], 0, nil)
        XCTAssertEqual(out, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                             0, 1, 2, 3, 0, 4, 5, 6, 0, 0, 0, 0])
        // Reversed columns through a negative stride.
        var copy = [Float](repeating: 0, count: 6)
        input.withUnsafeBufferPointer { ip in ck_copy_strided(2, [2, 3], ip.baseAddress! + 2, [3, -1], &copy, nil) }
        XCTAssertEqual(copy, [3, 2, 1, 6, 5, 4])
        // Size-1 dimensions anywhere (UNPACK's [21, 1] view of a [21, 3] tensor, a single value).
        let grid = (0..<63).map(Float.init)
        var column = [Float](repeating: -1, count: 21)
        grid.withUnsafeBufferPointer { gp in ck_copy_strided(2, [21, 1], gp.baseAddress! + 2, [3, 1], &column, nil) }
        XCTAssertEqual(column, (0..<21).map { Float($0 * 3 + 2) })
        grid.withUnsafeBufferPointer { gp in ck_copy_strided(4, [1, 21, 1, 1], gp.baseAddress! + 1, [63, 3, 7, 5], &column, nil) }
        XCTAssertEqual(column, (0..<21).map { Float($0 * 3 + 1) })
        var single: [Float] = [-1, -1]
        grid.withUnsafeBufferPointer { gp in ck_copy_strided(3, [1, 1, 1], gp.baseAddress! + 5, [9, 9, 9], &single, nil) }
        XCTAssertEqual(single, [5, -1])
        var reduced = [Float](repeating: 0, count: 3)
        ck_reduce(CK_REDUCE_MEAN, 2, [2, 3], 1, input, &reduced)
        XCTAssertEqual(reduced, [2.5, 3.5, 4.5])
        var maxima = [Float](repeating: 0, count: 2)
        ck_reduce(CK_REDUCE_MAX, 2, [2, 3], 2, input, &maxima)
        XCTAssertEqual(maxima, [3, 6])
        var minimum = [Float](repeating: 0, count: 1)
        ck_reduce(CK_REDUCE_MIN, 2, [2, 3], 3, input, &minimum)
        XCTAssertEqual(minimum, [1])
    }

    func testReductionFastAndGeneralPathsAgree() {
        var g = SeededGenerator(seed: 33)
        // Size-1 dimensions, reduced or kept, are dropped before a path is chosen.
        for dims in [[2, 3, 4, 5], [1, 3, 1, 5], [2, 1, 4, 1], [1, 21, 1, 3], [1, 1, 1, 1]] {
            reduceAgainstBruteForce(dims: dims, &g)
        }
    }

    private func reduceAgainstBruteForce(dims: [Int], _ g: inout SeededGenerator) {
        let total = dims.reduce(1, *)
        let input = randomFloats(total, &g)
        // Reference by brute force over every element.
        for mask in 1..<16 {
            for op in [CK_REDUCE_SUM, CK_REDUCE_MEAN, CK_REDUCE_MAX, CK_REDUCE_MIN] {
                let kept = (0..<4).filter { mask & (1 << $0) == 0 }
                let outCount = kept.reduce(1) { $0 * dims[$1] }
                var expected = [Float](repeating: op == CK_REDUCE_MAX ? -.infinity : op == CK_REDUCE_MIN ? .infinity : 0, count: outCount)
                var counts = [Float](repeating: 0, count: outCount)
                for i in 0..<total {
                    var rest = i, index = [0, 0, 0, 0]
                    for d in (0..<4).reversed() { index[d] = rest % dims[d]; rest /= dims[d] }
                    let o = kept.reduce(0) { $0 * dims[$1] + index[$1] }
                    let v = input[i]
                    switch op {
                    case CK_REDUCE_MAX: expected[o] = max(expected[o], v)
                    case CK_REDUCE_MIN: expected[o] = min(expected[o], v)
                    default: expected[o] += v
                    }
                    counts[o] += 1
                }
                if op == CK_REDUCE_MEAN { expected = zip(expected, counts).map { $0 / $1 } }
                var out = [Float](repeating: 0, count: outCount)
                ck_reduce(op, 4, dims, UInt32(mask), input, &out)
                for (a, b) in zip(out, expected) { XCTAssertEqual(a, b, accuracy: 1e-5, "dims \(dims) mask \(mask) op \(op)") }
            }
        }
    }

    func testHalfToFloat() {
        let halves: [UInt16] = [0x3c00, 0xc000, 0x0000, 0x8000, 0x7bff, 0x0001, 0x03ff, 0x7c00, 0xfc00, 0x3555]
        var floats = [Float](repeating: 0, count: halves.count)
        ck_f16_to_f32(halves, &floats, halves.count)
        XCTAssertEqual(floats[0], 1)
        XCTAssertEqual(floats[1], -2)
        XCTAssertEqual(floats[2], 0)
        XCTAssertEqual(floats[3].sign, .minus)
        XCTAssertEqual(floats[4], 65504)
        XCTAssertEqual(floats[5], 5.960464477539063e-08) // smallest subnormal
        XCTAssertEqual(floats[6], 6.097555160522461e-05) // largest subnormal
        XCTAssertEqual(floats[7], .infinity)
        XCTAssertEqual(floats[8], -.infinity)
        XCTAssertEqual(floats[9], 0.333251953125)
        var nan = [Float](repeating: 0, count: 1)
        ck_f16_to_f32([0x7e00], &nan, 1)
        XCTAssertTrue(nan[0].isNaN)
    }

    func testParallelForVisitsEveryIndexOnce() {
        for threads in [1, 2, 5] {
            let pool = ck_threadpool_create(Int32(threads))
            for count in [1, 2, 7, 1000] {
                var hits = [Int32](repeating: 0, count: count)
                hits.withUnsafeMutableBufferPointer { buffer in
                    ck_parallel_for(pool, count, { context, begin, end in
                        let p = context!.assumingMemoryBound(to: Int32.self)
                        for i in begin..<end { p[i] += 1 }
                    }, buffer.baseAddress)
                }
                XCTAssertEqual(hits, [Int32](repeating: 1, count: count), "threads \(threads) count \(count)")
            }
            ck_threadpool_destroy(pool)
        }
    }

    func testWorkerThreadsTakePartInTheWork() {
        let pool = ck_threadpool_create(2)
        defer { ck_threadpool_destroy(pool) }
        // Slow chunks: while the caller sleeps in one, the worker must pick up others.
        var threads = [UInt](repeating: 0, count: 16)
        threads.withUnsafeMutableBufferPointer { buffer in
            ck_parallel_for(pool, 16, { context, begin, end in
                let p = context!.assumingMemoryBound(to: UInt.self)
                for i in begin..<end {
                    p[i] = UInt(pthread_self())
                    usleep(2000)
                }
            }, buffer.baseAddress)
        }
        XCTAssertEqual(Set(threads).count, 2)
    }
}
