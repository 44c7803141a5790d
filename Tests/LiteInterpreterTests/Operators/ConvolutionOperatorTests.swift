@testable import LiteInterpreter
import XCTest

/// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED against a reference in double precision
/// (`referenceConv`), over the geometries the conformance models do not cover, on one and two
/// threads, with float32 and half-precision weights.
final class ConvolutionOperatorTests: XCTestCase {
    func testConvolutionsAgainstReference() throws {
        var r = TestRandom(state: 7)
        let cases = [
            ConvCase(h: 9, w: 8, c: 3, oc: 5, kh: 3, kw: 3, stride: 2, dilation: 1, same: true, activation: 1),
            ConvCase(h: 7, w: 7, c: 4, oc: 17, kh: 2, kw: 2, stride: 1, dilation: 2, same: false, activation: 0),
            ConvCase(h: 6, w: 5, c: 18, oc: 33, kh: 1, kw: 1, stride: 1, dilation: 1, same: true, activation: 3),
            ConvCase(h: 10, w: 6, c: 2, oc: 4, kh: 1, kw: 1, stride: 2, dilation: 1, same: false, activation: 0),
            ConvCase(h: 5, w: 6, c: 3, oc: 8, kh: 2, kw: 2, stride: 1, dilation: 1, same: true, activation: 0),
            // Narrow convolutions over 8 channels read the image directly.
            ConvCase(h: 9, w: 11, c: 8, oc: 1, kh: 3, kw: 3, stride: 1, dilation: 1, same: true, activation: 0),
            ConvCase(h: 12, w: 10, c: 8, oc: 3, kh: 5, kw: 5, stride: 2, dilation: 1, same: true, activation: 1),
            ConvCase(h: 6, w: 9, c: 8, oc: 2, kh: 3, kw: 3, stride: 2, dilation: 1, same: false, activation: 0),
        ]
        for t in cases {
            let input = r.floats(t.h * t.w * t.c), weights = r.floats(t.oc * t.kh * t.kw * t.c), bias = r.floats(t.oc)
            let (expected, oh, ow) = referenceConv(t, input, weights, bias, depthwise: false)
            var m = TestModel()
            let x = m.addTensor([1, t.h, t.w, t.c]), f = m.addConstant([t.oc, t.kh, t.kw, t.c], weights)
            let b = m.addConstant([t.oc], bias), y = m.addTensor([1, oh, ow, t.oc])
            m.addOperator(code: Op.conv2D, inputs: [x, f, b], outputs: [y], optionsType: Options.conv2D,
                          options: [(0, .int8(t.same ? 0 : 1)), (1, .int32(Int32(t.stride))), (2, .int32(Int32(t.stride))),
                                    (3, .int8(t.activation)), (4, .int32(Int32(t.dilation))), (5, .int32(Int32(t.dilation)))])
            m.inputs = [x]
            m.outputs = [y]
            for threads in [1, 2] {
                assertClose(try runModel(m.serialize(), [input], threads: threads)[0], expected, 1e-5, "conv \(t)")
            }
        }
    }

    func testDepthwiseConvolutionsAgainstReference() throws {
        var r = TestRandom(state: 8)
        let cases = [
            ConvCase(h: 9, w: 7, c: 19, oc: 19, kh: 3, kw: 3, stride: 1, dilation: 1, same: true, activation: 3),
            ConvCase(h: 10, w: 9, c: 20, oc: 20, kh: 5, kw: 5, stride: 2, dilation: 1, same: true, activation: 0),
            ConvCase(h: 8, w: 8, c: 3, oc: 3, kh: 3, kw: 3, stride: 1, dilation: 2, same: false, activation: 1),
            ConvCase(h: 6, w: 6, c: 1, oc: 3, kh: 3, kw: 3, stride: 1, dilation: 1, same: true, activation: 0), // multiplier 3
        ]
        for t in cases {
            let input = r.floats(t.h * t.w * t.c), weights = r.floats(t.kh * t.kw * t.oc), bias = r.floats(t.oc)
            let (expected, oh, ow) = referenceConv(t, input, weights, bias, depthwise: true)
            var m = TestModel()
            let x = m.addTensor([1, t.h, t.w, t.c]), f = m.addConstant([1, t.kh, t.kw, t.oc], weights)
            let b = m.addConstant([t.oc], bias), y = m.addTensor([1, oh, ow, t.oc])
            m.addOperator(code: Op.depthwiseConv2D, inputs: [x, f, b], outputs: [y], optionsType: Options.depthwiseConv2D,
                          options: [(0, .int8(t.same ? 0 : 1)), (1, .int32(Int32(t.stride))), (2, .int32(Int32(t.stride))),
                                    (3, .int32(Int32(t.oc / t.c))), (4, .int8(t.activation)),
                                    (5, .int32(Int32(t.dilation))), (6, .int32(Int32(t.dilation)))])
            m.inputs = [x]
            m.outputs = [y]
            assertClose(try runModel(m.serialize(), [input], threads: 2)[0], expected, 1e-5, "depthwise \(t)")
        }
    }

    func testFullyConnectedKeepsDimsAndRunsWithoutBias() throws {
        var r = TestRandom(state: 10)
        let (rows, k, n) = (6, 20, 9)
        let input = r.floats(rows * k), weights = r.floats(n * k)
        var expected: [Float] = []
        for i in 0..<rows { for j in 0..<n { expected.append((0..<k).reduce(Float(0)) { $0 + input[i * k + $1] * weights[j * k + $1] }) } }
        for keep in [false, true] {
            var m = TestModel()
            let x = m.addTensor([2, 3, k]), f = m.addConstant([n, k], weights), y = m.addTensor(keep ? [2, 3, n] : [rows, n])
            m.addOperator(code: Op.fullyConnected, inputs: [x, f, -1], outputs: [y], optionsType: Options.fullyConnected,
                          options: [(0, .int8(0)), (2, .bool(keep))])
            m.inputs = [x]
            m.outputs = [y]
            assertClose(try runModel(m.serialize(), [input])[0], expected, 1e-5, "keep \(keep)")
        }
    }

    func testHalfPrecisionWeightsForFewOutputPixels() throws {
        // Weights that are half-precision values, used for 2x2 output pixels: packed as halves,
        // with the same results as float32 weights.
        var r = TestRandom(state: 15)
        let (h, w, c, oc) = (2, 2, 40, 24)
        let input = r.floats(h * w * c), bias = r.floats(oc)
        let weights = r.floats(oc * c).map { ($0 * 1024).rounded() / 1024 }
        let t = ConvCase(h: h, w: w, c: c, oc: oc, kh: 1, kw: 1, stride: 1, dilation: 1, same: true, activation: 0)
        let expected = referenceConv(t, input, weights, bias, depthwise: false).out
        var m = TestModel()
        let x = m.addTensor([1, h, w, c]), f = m.addConstant([oc, 1, 1, c], weights), b = m.addConstant([oc], bias)
        let y = m.addTensor([1, h, w, oc])
        m.addOperator(code: Op.conv2D, inputs: [x, f, b], outputs: [y], optionsType: Options.conv2D,
                      options: [(0, .int8(0)), (1, .int32(1)), (2, .int32(1))])
        m.inputs = [x]
        m.outputs = [y]
        XCTAssertEqual(try Model(bytes: m.serialize()).program.operations.first?.summary, "CONV_2D 1x1/1 (gemm, f16)")
        assertClose(try runModel(m.serialize(), [input])[0], expected, 1e-5)
        // A weight that is not a half-precision value keeps float32 panels.
        var g = m
        g.tensors[Int(f)].buffer = g.addBuffer(weights.enumerated().map { $0 == 5 ? $1 + 1e-6 : $1 }.flatMap { le($0.bitPattern) })
        XCTAssertEqual(try Model(bytes: g.serialize()).program.operations.first?.summary, "CONV_2D 1x1/1 (gemm)")
    }
}
