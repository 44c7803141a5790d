import CKernels
import XCTest

/// `ck_pointwise_dwconv` runs a 1x1 convolution and the depthwise convolution reading it in bands
/// of rows on one thread (with more, as the two calls): both outputs must have the bits of `ck_gemm` then
/// `ck_dwconv`, at every kernel level and thread count.
final class PointwiseDepthwiseTests: XCTestCase {
    struct Case {
        var h, w, inputs, channels, kernel, stride, padTop, padLeft: Int
        var oh: Int { (h + 2 * padTop - kernel) / stride + 1 }
        var ow: Int { (w + 2 * padLeft - kernel) / stride + 1 }
    }

    /// The two outputs (expanded tensor, depthwise output), fused or as two calls.
    func run(_ t: Case, fused: Bool, x: [Float], gemmPacked: [Float], dwPacked: [Float], residual: [Float]?, slopes: [Float],
             pool: OpaquePointer?) -> ([Float], [Float]) {
        let m = t.h * t.w
        var expanded = [Float](repeating: 555, count: m * t.channels)
        var out = [Float](repeating: 777, count: t.oh * t.ow * t.channels + t.channels)
        let res = residual ?? []
        x.withUnsafeBufferPointer { xp in
            gemmPacked.withUnsafeBufferPointer { gp in
                dwPacked.withUnsafeBufferPointer { dp in
                    res.withUnsafeBufferPointer { rp in
                        slopes.withUnsafeBufferPointer { sp in
                            expanded.withUnsafeMutableBufferPointer { ep in
                                out.withUnsafeMutableBufferPointer { op in
                                    var g = ck_gemm_params(
                                        m: m, n: t.channels, k: t.inputs, a: xp.baseAddress, a_stride: t.inputs, packed: gp.baseAddress,
                                        c: ep.baseAddress, c_stride: t.channels, out_min: -1, out_max: 6, prelu: sp.baseAddress,
                                        residual: residual == nil ? nil : rp.baseAddress, residual_stride: t.channels,
                                        sum_min: -2, sum_max: 5, weights_f16: 0)
                                    var d = ck_dwconv_params(
                                        batch: 1, in_h: t.h, in_w: t.w, channels: t.channels, out_h: t.oh, out_w: t.ow,
                                        kernel_h: t.kernel, kernel_w: t.kernel, stride_h: t.stride, stride_w: t.stride,
                                        dilation_h: 1, dilation_w: 1, pad_top: t.padTop, pad_left: t.padLeft,
                                        input: UnsafePointer(ep.baseAddress), packed: dp.baseAddress, zero: nil,
                                        output: op.baseAddress, out_min: 0, out_max: 6, prelu: nil, line_spans: -1)
                                    if fused {
                                        ck_pointwise_dwconv(&g, &d, pool)
                                    } else {
                                        ck_gemm(&g, pool)
                                        ck_dwconv(&d, pool)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        XCTAssertTrue(out[(t.oh * t.ow * t.channels)...].allSatisfy { $0 == 777 }, "the depthwise wrote past its output, \(t)")
        return (expanded, Array(out[..<(t.oh * t.ow * t.channels)]))
    }

    func testBandsGiveTheBitsOfTheTwoCalls() throws {
        var g = SeededGenerator(seed: 21)
        let cases = [
            // Many bands (about 64 KB of expanded rows each), both strides and kernels.
            Case(h: 64, w: 40, inputs: 16, channels: 64, kernel: 3, stride: 2, padTop: 0, padLeft: 0),
            Case(h: 61, w: 37, inputs: 16, channels: 64, kernel: 3, stride: 1, padTop: 1, padLeft: 1),
            Case(h: 45, w: 29, inputs: 24, channels: 96, kernel: 5, stride: 2, padTop: 2, padLeft: 2),
            Case(h: 50, w: 23, inputs: 8, channels: 40, kernel: 5, stride: 1, padTop: 2, padLeft: 2),
            // Channels that end in half a vector, inputs below a vector; one band.
            Case(h: 19, w: 17, inputs: 5, channels: 20, kernel: 3, stride: 1, padTop: 1, padLeft: 1),
            // 49 and 25 pixels: the GEMM's last tile has one row (summed in four parts).
            Case(h: 7, w: 7, inputs: 16, channels: 16, kernel: 3, stride: 1, padTop: 1, padLeft: 1),
            Case(h: 5, w: 5, inputs: 32, channels: 24, kernel: 5, stride: 2, padTop: 2, padLeft: 2),
            // One row, no padding.
            Case(h: 1, w: 30, inputs: 16, channels: 32, kernel: 1, stride: 1, padTop: 0, padLeft: 0),
        ]
        let pools = [ck_threadpool_create(2), ck_threadpool_create(3)]
        defer { pools.forEach { ck_threadpool_destroy($0) } }
        for t in cases {
            let x = randomFloats(t.h * t.w * t.inputs, &g)
            let weights = randomFloats(t.channels * t.inputs, &g), bias = randomFloats(t.channels, &g)
            let dwWeights = randomFloats(t.kernel * t.kernel * t.channels, &g), dwBias = randomFloats(t.channels, &g)
            let slopes = randomFloats(t.channels, &g, in: 0...0.5)
            let residual = randomFloats(t.h * t.w * t.channels, &g, in: -3...3)
            var gemmPacked = [Float](repeating: .nan, count: ck_conv_packed_size(t.channels, 1, t.inputs))
            bias.withUnsafeBufferPointer { ck_conv_pack(t.channels, 1, t.inputs, weights, $0.baseAddress, &gemmPacked) }
            var dwPacked = [Float](repeating: .nan, count: ck_dwconv_packed_size(t.channels, t.kernel * t.kernel))
            dwBias.withUnsafeBufferPointer { ck_dwconv_pack(t.channels, t.kernel * t.kernel, dwWeights, $0.baseAddress, &dwPacked) }
            for withResidual in [false, true] {
                let r = withResidual ? residual : nil
                let (portable, levels) = try portableAndEachSIMD { () -> [(([Float], [Float]), ([Float], [Float]))] in
                    let separate = run(t, fused: false, x: x, gemmPacked: gemmPacked, dwPacked: dwPacked, residual: r, slopes: slopes, pool: nil)
                    return ([nil] + pools).map { pool in
                        (separate, run(t, fused: true, x: x, gemmPacked: gemmPacked, dwPacked: dwPacked, residual: r, slopes: slopes, pool: pool))
                    }
                }
                for level in [(level: "portable", result: portable)] + levels {
                    for (threads, (separate, fused)) in zip([1, 2, 3], level.result) {
                        let what = "\(level.level), \(threads) thread(s), residual \(withResidual), \(t)"
                        XCTAssertEqual(fused.0, separate.0, "expanded tensor, \(what)")
                        XCTAssertEqual(fused.1, separate.1, "depthwise output, \(what)")
                    }
                }
            }
        }
    }
}
