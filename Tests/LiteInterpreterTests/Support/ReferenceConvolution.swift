import Foundation

/// A convolution for `referenceConv`: the input's height, width and channels, the output
/// channels, the kernel's height and width, stride and dilation (the same along both axes), SAME
/// (or VALID) padding, and the fused activation as TFLite codes it (0 none, 1 RELU, 3 RELU6).
struct ConvCase {
    var h, w, c, oc, kh, kw, stride, dilation: Int
    var same: Bool
    var activation: Int8
}

/// A convolution of one image in double precision, rounded to float at the end: CONV_2D with
/// OHWI weights, or (`depthwise`) DEPTHWISE_CONV_2D with [1, kh, kw, oc] weights and a depth
/// multiplier of oc / c. Returns the NHWC output and its height and width.
func referenceConv(_ t: ConvCase, _ input: [Float], _ weights: [Float], _ bias: [Float], depthwise: Bool) -> (out: [Float], oh: Int, ow: Int) {
    let eh = (t.kh - 1) * t.dilation + 1, ew = (t.kw - 1) * t.dilation + 1
    let oh = t.same ? (t.h + t.stride - 1) / t.stride : (t.h - eh) / t.stride + 1
    let ow = t.same ? (t.w + t.stride - 1) / t.stride : (t.w - ew) / t.stride + 1
    let pt = t.same ? max((oh - 1) * t.stride + eh - t.h, 0) / 2 : 0
    let pl = t.same ? max((ow - 1) * t.stride + ew - t.w, 0) / 2 : 0
    var out: [Float] = []
    for oy in 0..<oh {
        for ox in 0..<ow {
            for o in 0..<t.oc {
                var sum = Double(bias[o])
                for ky in 0..<t.kh {
                    for kx in 0..<t.kw {
                        let iy = oy * t.stride + ky * t.dilation - pt, ix = ox * t.stride + kx * t.dilation - pl
                        guard iy >= 0, iy < t.h, ix >= 0, ix < t.w else { continue }
                        if depthwise {
                            let ic = o / (t.oc / t.c)
                            sum += Double(input[(iy * t.w + ix) * t.c + ic]) * Double(weights[(ky * t.kw + kx) * t.oc + o])
                        } else {
                            for ic in 0..<t.c {
                                sum += Double(input[(iy * t.w + ix) * t.c + ic]) * Double(weights[((o * t.kh + ky) * t.kw + kx) * t.c + ic])
                            }
                        }
                    }
                }
                let v = Float(sum)
                out.append(t.activation == 1 ? max(v, 0) : t.activation == 3 ? min(max(v, 0), 6) : v)
            }
        }
    }
    return (out, oh, ow)
}
