@testable import LiteInterpreter
import XCTest

/// Operator behaviours the conformance models do not cover, on models built in the test and
/// checked against straightforward reference computations.
final class OperatorTests: XCTestCase {
    // MARK: Element-wise

    func binaryModel(_ code: Int32, _ optionsType: UInt8, a: [Int], b: [Int], out: [Int], activation: Int8 = 0, constantB: [Float]? = nil) -> [UInt8] {
        var m = TestModel()
        let x = m.addTensor(a)
        let y = constantB.map { m.addConstant(b, $0) } ?? m.addTensor(b)
        let z = m.addTensor(out)
        m.addOperator(code: code, inputs: [x, y], outputs: [z], optionsType: optionsType, options: [(0, .int8(activation))])
        m.inputs = constantB == nil ? [x, y] : [x]
        m.outputs = [z]
        return m.serialize()
    }

    func testBroadcastingWithFusedActivations() throws {
        var r = TestRandom(state: 1)
        let a = r.floats(2 * 1 * 3).map { $0 * 8 }, b = r.floats(4 * 1).map { $0 * 8 }
        func expected(_ f: (Float, Float) -> Float, _ lo: Float, _ hi: Float) -> [Float] {
            var out: [Float] = []
            for i in 0..<2 { for j in 0..<4 { for k in 0..<3 { out.append(min(max(f(a[i * 3 + k], b[j]), lo), hi)) } } }
            return out
        }
        // [2, 1, 3] with [4, 1] -> [2, 4, 3].
        let cases: [(Int32, UInt8, Int8, (Float, Float) -> Float, Float, Float)] = [
            (Op.add, Options.add, 3, (+), 0, 6),               // RELU6
            (Op.sub, Options.sub, 1, (-), 0, .infinity),       // RELU
            (Op.mul, Options.mul, 2, (*), -1, 1),              // RELU_N1_TO_1
            (Op.div, Options.div, 0, (/), -.infinity, .infinity),
        ]
        for (code, options, activation, f, lo, hi) in cases {
            let out = try runModel(binaryModel(code, options, a: [2, 1, 3], b: [4, 1], out: [2, 4, 3], activation: activation), [a, b])
            assertClose(out[0], expected(f, lo, hi), 1e-6, "op \(code)")
        }
        let maximum = try runModel(binaryModel(Op.maximum, 0, a: [2, 1, 3], b: [4, 1], out: [2, 4, 3]), [a, b])
        assertClose(maximum[0], expected({ max($0, $1) }, -.infinity, .infinity), 0, "maximum")
        // Fused TANH runs as a separate pass.
        let tanhOut = try runModel(binaryModel(Op.add, Options.add, a: [2, 1, 3], b: [4, 1], out: [2, 4, 3], activation: 4), [a, b])
        assertClose(tanhOut[0], expected(+, -.infinity, .infinity).map { Foundation.tanh($0) }, 1e-6, "tanh")
    }

    func testScalarConstantOperandAndShapeMismatch() throws {
        // SUB(scalar constant, x) as in the gesture embedder.
        var m = TestModel()
        let c = m.addConstant([], [1])
        let x = m.addTensor([1, 3])
        let z = m.addTensor([1, 3])
        m.addOperator(code: Op.sub, inputs: [c, x], outputs: [z], optionsType: Options.sub, options: [(0, .int8(0))])
        m.inputs = [x]
        m.outputs = [z]
        XCTAssertEqual(try runModel(m.serialize(), [[0.25, 2, -1]])[0], [0.75, -1, 2])
        // Incompatible shapes are a load-time error.
        assertModelError(binaryModel(Op.add, Options.add, a: [2, 3], b: [4], out: [2, 3])) {
            "\($0)".contains("cannot be broadcast")
        }
        // A declared output shape that does not match the broadcast.
        assertModelError(binaryModel(Op.add, Options.add, a: [2, 3], b: [3], out: [3, 2])) {
            "\($0)".contains("expected [2, 3]")
        }
    }

    func testActivationsAndSoftmax() throws {
        let x: [Float] = [-7, -1, -0.2, 0, 0.4, 1, 5, 9]
        func unary(_ code: Int32) throws -> [Float] {
            var m = TestModel()
            let a = m.addTensor([2, 4]), b = m.addTensor([2, 4])
            m.addOperator(code: code, inputs: [a], outputs: [b])
            m.inputs = [a]
            m.outputs = [b]
            return try runModel(m.serialize(), [x])[0]
        }
        assertClose(try unary(Op.logistic), x.map { 1 / (1 + exp(-$0)) }, 1e-6)
        assertClose(try unary(Op.tanh), x.map { tanh($0) }, 1e-6)
        XCTAssertEqual(try unary(Op.relu), x.map { max($0, 0) })
        XCTAssertEqual(try unary(Op.relu6), x.map { min(max($0, 0), 6) })

        var m = TestModel()
        let a = m.addTensor([2, 4]), b = m.addTensor([2, 4])
        m.addOperator(code: Op.softmax, inputs: [a], outputs: [b], optionsType: Options.softmax, options: [(0, .float(0.5))])
        m.inputs = [a]
        m.outputs = [b]
        let out = try runModel(m.serialize(), [x])[0]
        for row in 0..<2 {
            let e = x[(row * 4)..<(row * 4 + 4)].map { exp(0.5 * $0) }
            let sum = e.reduce(0, +)
            assertClose(Array(out[(row * 4)..<(row * 4 + 4)]), e.map { $0 / sum }, 1e-6)
        }
    }

    // MARK: Resize

    func resizeModel(align: Bool, half: Bool, size: [Int32]) -> [UInt8] {
        var m = TestModel()
        let x = m.addTensor([1, 1, 2, 1])
        let s = m.addInts([2], size)
        let y = m.addTensor([1, Int(size[0]), Int(size[1]), 1])
        m.addOperator(code: Op.resizeBilinear, inputs: [x, s], outputs: [y], optionsType: Options.resizeBilinear,
                      options: [(2, .bool(align)), (3, .bool(half))])
        m.inputs = [x]
        m.outputs = [y]
        return m.serialize()
    }

    func testResizeBilinearCoordinateConventions() throws {
        let input: [Float] = [0, 1]
        assertClose(try runModel(resizeModel(align: false, half: false, size: [1, 4]), [input])[0], [0, 0.5, 1, 1], 1e-6)
        assertClose(try runModel(resizeModel(align: false, half: true, size: [1, 4]), [input])[0], [0, 0.25, 0.75, 1], 1e-6)
        assertClose(try runModel(resizeModel(align: true, half: false, size: [1, 4]), [input])[0], [0, 1.0 / 3, 2.0 / 3, 1], 1e-6)
        // A size tensor that disagrees with the output shape.
        var m = TestModel()
        let x = m.addTensor([1, 1, 2, 1]), s = m.addInts([2], [2, 2]), y = m.addTensor([1, 3, 3, 1])
        m.addOperator(code: Op.resizeBilinear, inputs: [x, s], outputs: [y], optionsType: Options.resizeBilinear, options: [])
        m.inputs = [x]
        m.outputs = [y]
        assertModelError(m.serialize()) { "\($0)".contains("expected [1, 2, 2, 1]") }
    }

    // MARK: Convolutions

    struct ConvCase {
        var h, w, c, oc, kh, kw, stride, dilation: Int
        var same: Bool
        var activation: Int8
    }

    static func referenceConv(_ t: ConvCase, _ input: [Float], _ weights: [Float], _ bias: [Float], depthwise: Bool) -> (out: [Float], oh: Int, ow: Int) {
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
            let (expected, oh, ow) = Self.referenceConv(t, input, weights, bias, depthwise: false)
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
            let (expected, oh, ow) = Self.referenceConv(t, input, weights, bias, depthwise: true)
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

    func testPReLUFusedIntoConvolutionAndStandalone() throws {
        var r = TestRandom(state: 9)
        let (h, w, c, oc) = (4, 5, 6, 7)
        let input = r.floats(h * w * c), weights = r.floats(oc * c), bias = r.floats(oc), slopes = r.floats(oc).map { abs($0) }
        let t = ConvCase(h: h, w: w, c: c, oc: oc, kh: 1, kw: 1, stride: 1, dilation: 1, same: true, activation: 0)
        let (conv, _, _) = Self.referenceConv(t, input, weights, bias, depthwise: false)
        let expected = conv.enumerated().map { i, v in v >= 0 ? v : v * slopes[i % oc] }
        var m = TestModel()
        let x = m.addTensor([1, h, w, c]), f = m.addConstant([oc, 1, 1, c], weights), b = m.addConstant([oc], bias)
        let mid = m.addTensor([1, h, w, oc]), alpha = m.addConstant([1, 1, oc], slopes), y = m.addTensor([1, h, w, oc])
        m.addOperator(code: Op.conv2D, inputs: [x, f, b], outputs: [mid], optionsType: Options.conv2D,
                      options: [(0, .int8(0)), (1, .int32(1)), (2, .int32(1))])
        m.addOperator(code: Op.prelu, inputs: [mid, alpha], outputs: [y])
        m.inputs = [x]
        m.outputs = [y]
        let model = try Model(bytes: m.serialize())
        XCTAssertEqual(model.program.operations.count, 1, "PRELU should be fused into the convolution")
        assertClose(try runModel(m.serialize(), [input])[0], expected, 1e-5, "fused")

        // When the convolution's output is also a graph output, PRELU stays separate.
        m.outputs = [y, mid]
        let separate = try Model(bytes: m.serialize())
        XCTAssertEqual(separate.program.operations.count, 2)
        let outs = try runModel(m.serialize(), [input])
        assertClose(outs[0], expected, 1e-5, "separate")
        assertClose(outs[1], conv, 1e-5, "conv output")
    }

    func testResidualAddFusedIntoConvolution() throws {
        var r = TestRandom(state: 13)
        let (h, w, c, oc) = (5, 7, 6, 20)
        let input = r.floats(h * w * c), skip = r.floats(h * w * oc).map { $0 * 4 }
        let weights = r.floats(oc * c), bias = r.floats(oc), slopes = r.floats(oc).map { abs($0) }
        let t = ConvCase(h: h, w: w, c: c, oc: oc, kh: 1, kw: 1, stride: 1, dilation: 1, same: true, activation: 3)
        let (conv, _, _) = Self.referenceConv(t, input, weights, bias, depthwise: false) // RELU6
        // ADD with RELU_N1_TO_1, then PRELU: all three in the convolution's epilogue.
        let sum = zip(conv, skip).map { min(max($0 + $1, -1), 1) }
        let expected = sum.enumerated().map { i, v in v >= 0 ? v : v * slopes[i % oc] }
        func model(skipFirst: Bool, convIsOutput: Bool) -> [UInt8] {
            var m = TestModel()
            let x = m.addTensor([1, h, w, c]), s = m.addTensor([1, h, w, oc])
            let f = m.addConstant([oc, 1, 1, c], weights), b = m.addConstant([oc], bias)
            let mid = m.addTensor([1, h, w, oc]), added = m.addTensor([1, h, w, oc])
            let alpha = m.addConstant([1, 1, oc], slopes), y = m.addTensor([1, h, w, oc])
            m.addOperator(code: Op.conv2D, inputs: [x, f, b], outputs: [mid], optionsType: Options.conv2D,
                          options: [(0, .int8(0)), (1, .int32(1)), (2, .int32(1)), (3, .int8(3))])
            m.addOperator(code: Op.add, inputs: skipFirst ? [s, mid] : [mid, s], outputs: [added], optionsType: Options.add,
                          options: [(0, .int8(2))])
            m.addOperator(code: Op.prelu, inputs: [added, alpha], outputs: [y])
            m.inputs = [x, s]
            m.outputs = convIsOutput ? [y, mid] : [y]
            return m.serialize()
        }
        for skipFirst in [false, true] {
            let bytes = model(skipFirst: skipFirst, convIsOutput: false)
            let program = try Model(bytes: bytes).program
            XCTAssertEqual(program.operations.count, 1, "ADD and PRELU should be fused into the convolution")
            XCTAssertEqual(program.operations.first?.summary, "CONV_2D 1x1/1 (gemm)+ADD")
            for threads in [1, 2] {
                assertClose(try runModel(bytes, [input, skip], threads: threads)[0], expected, 1e-5, "fused, skip first \(skipFirst)")
            }
        }
        // The convolution's own output is read elsewhere: the ADD stays (with the PRELU fused).
        let bytes = model(skipFirst: false, convIsOutput: true)
        XCTAssertEqual(try Model(bytes: bytes).program.operations.map(\.summary), ["CONV_2D 1x1/1 (gemm)", "ADD+PRELU"])
        let outs = try runModel(bytes, [input, skip])
        assertClose(outs[0], expected, 1e-5, "separate")
        assertClose(outs[1], conv, 1e-5, "conv output")
    }

    /// RESIZE_BILINEAR (2x up) then a 1x1 CONV_2D with an activation: the interpreter runs the
    /// convolution first, on the small image, and clamps after the resize. Checked against the
    /// model's own order (the resize, then a reference convolution in double precision), and
    /// the cases that must stay as they are.
    func testPointwiseConvolutionRunsBeforeAnUpscalingResize() throws {
        var r = TestRandom(state: 41)
        let (h, w, c, oc) = (3, 4, 6, 10)
        let input = r.floats(h * w * c), weights = r.floats(oc * c).map { $0 * 2 }, bias = r.floats(oc)
        func model(activation: Int8, size: [Int32], resizeIsOutput: Bool = false) -> [UInt8] {
            var m = TestModel()
            let (oh, ow) = (Int(size[0]), Int(size[1]))
            let x = m.addTensor([1, h, w, c]), s = m.addInts([2], size), up = m.addTensor([1, oh, ow, c])
            let f = m.addConstant([oc, 1, 1, c], weights), b = m.addConstant([oc], bias), y = m.addTensor([1, oh, ow, oc])
            m.addOperator(code: Op.resizeBilinear, inputs: [x, s], outputs: [up], optionsType: Options.resizeBilinear,
                          options: [(3, .bool(true))])
            m.addOperator(code: Op.conv2D, inputs: [up, f, b], outputs: [y], optionsType: Options.conv2D,
                          options: [(0, .int8(0)), (1, .int32(1)), (2, .int32(1)), (3, .int8(activation))])
            m.inputs = [x]
            m.outputs = resizeIsOutput ? [y, up] : [y]
            return m.serialize()
        }
        func expected(activation: Int8, size: [Int32]) throws -> [Float] {
            var m = TestModel()
            let x = m.addTensor([1, h, w, c]), s = m.addInts([2], size), up = m.addTensor([1, Int(size[0]), Int(size[1]), c])
            m.addOperator(code: Op.resizeBilinear, inputs: [x, s], outputs: [up], optionsType: Options.resizeBilinear,
                          options: [(3, .bool(true))])
            m.inputs = [x]
            m.outputs = [up]
            let resized = try runModel(m.serialize(), [input])[0]
            let t = ConvCase(h: Int(size[0]), w: Int(size[1]), c: c, oc: oc, kh: 1, kw: 1, stride: 1, dilation: 1, same: true,
                             activation: activation)
            return Self.referenceConv(t, resized, weights, bias, depthwise: false).out
        }
        for activation: Int8 in [0, 1, 3] { // none, RELU, RELU6
            let bytes = model(activation: activation, size: [6, 8])
            XCTAssertEqual(try Model(bytes: bytes).program.operations.map(\.summary), ["CONV_2D 1x1/1 (gemm)", "RESIZE_BILINEAR"],
                           "activation \(activation)")
            let reference = try expected(activation: activation, size: [6, 8])
            XCTAssertTrue(reference.contains { $0 < 0 } == (activation == 0), "the clamp must matter")
            for threads in [1, 2] {
                assertClose(try runModel(bytes, [input], threads: threads)[0], reference, 1e-5, "activation \(activation)")
            }
        }
        // Left in the model's order: the resized image is read elsewhere too, the resize shrinks
        // the image, or the activation (TANH) does not commute with the resize.
        for (bytes, what) in [(model(activation: 3, size: [6, 8], resizeIsOutput: true), "resize read twice"),
                              (model(activation: 3, size: [2, 2]), "downscale"), (model(activation: 4, size: [6, 8]), "tanh")] {
            XCTAssertEqual(try Model(bytes: bytes).program.operations.map(\.summary).first, "RESIZE_BILINEAR", what)
        }
        assertClose(try runModel(model(activation: 3, size: [2, 2]), [input])[0], try expected(activation: 3, size: [2, 2]), 1e-5)
    }

    func testBatchNormalisationAndSiLUFusedIntoOnePass() throws {
        // MUL by constants, ADD constants, LOGISTIC, MUL of the sum by its logistic (as in the
        // gesture embedder), on [2, 13] with per-channel constants of 13 (a SIMD tail).
        var r = TestRandom(state: 31)
        let (rows, c) = (2, 13)
        let input = r.floats(rows * c).map { $0 * 6 }, scale = r.floats(c).map { $0 * 2 }, shift = r.floats(c)
        let expected = input.enumerated().map { i, v -> Float in
            var y = v * scale[i % c]
            y = y + shift[i % c]
            return y * (1 / (1 + Foundation.exp(-y)))
        }
        func model(mulActivation: Int8 = 0, sumIsOutput: Bool = false) -> [UInt8] {
            var m = TestModel()
            let x = m.addTensor([rows, c]), a = m.addConstant([c], scale), b = m.addConstant([c], shift)
            let scaled = m.addTensor([rows, c]), sum = m.addTensor([rows, c]), s = m.addTensor([rows, c]), z = m.addTensor([rows, c])
            m.addOperator(code: Op.mul, inputs: [x, a], outputs: [scaled], optionsType: Options.mul, options: [(0, .int8(mulActivation))])
            m.addOperator(code: Op.add, inputs: [b, scaled], outputs: [sum], optionsType: Options.add, options: [(0, .int8(0))])
            m.addOperator(code: Op.logistic, inputs: [sum], outputs: [s])
            m.addOperator(code: Op.mul, inputs: [s, sum], outputs: [z], optionsType: Options.mul, options: [(0, .int8(0))])
            m.inputs = [x]
            m.outputs = sumIsOutput ? [z, sum] : [z]
            return m.serialize()
        }
        let fused = model()
        XCTAssertEqual(try Model(bytes: fused).program.operations.map(\.summary), ["MUL+ADD+LOGISTIC+MUL"])
        for threads in [1, 2] { assertClose(try runModel(fused, [input], threads: threads)[0], expected, 1e-6, "fused") }

        // A clamped MUL stays separate; the ADD is still taken over.
        let clamped = model(mulActivation: 1) // RELU
        XCTAssertEqual(try Model(bytes: clamped).program.operations.map(\.summary), ["MUL", "ADD+LOGISTIC+MUL"])
        let relu = input.enumerated().map { i, v -> Float in
            let y = max(v * scale[i % c], 0) + shift[i % c]
            return y * (1 / (1 + Foundation.exp(-y)))
        }
        assertClose(try runModel(clamped, [input])[0], relu, 1e-6, "clamped")

        // The sum is read elsewhere: only LOGISTIC and the last MUL become one.
        let shared = model(sumIsOutput: true)
        XCTAssertEqual(try Model(bytes: shared).program.operations.map(\.summary), ["MUL", "ADD", "LOGISTIC+MUL"])
        let outs = try runModel(shared, [input])
        assertClose(outs[0], expected, 1e-6, "shared")
        assertClose(outs[1], input.enumerated().map { i, v in v * scale[i % c] + shift[i % c] }, 1e-6, "sum")
    }

    func testResidualAddNeedsItsOtherOperandFirst() throws {
        // ADD(conv1(x), conv2(x)): conv2 runs after conv1, so only conv2 can take the ADD.
        var r = TestRandom(state: 14)
        let (h, w, c, oc) = (3, 4, 5, 17)
        let input = r.floats(h * w * c), w1 = r.floats(oc * c), w2 = r.floats(oc * c), b1 = r.floats(oc), b2 = r.floats(oc)
        let t = ConvCase(h: h, w: w, c: c, oc: oc, kh: 1, kw: 1, stride: 1, dilation: 1, same: true, activation: 0)
        let c1 = Self.referenceConv(t, input, w1, b1, depthwise: false).out, c2 = Self.referenceConv(t, input, w2, b2, depthwise: false).out
        var m = TestModel()
        let x = m.addTensor([1, h, w, c]), y1 = m.addTensor([1, h, w, oc]), y2 = m.addTensor([1, h, w, oc]), z = m.addTensor([1, h, w, oc])
        let f1 = m.addConstant([oc, 1, 1, c], w1), f2 = m.addConstant([oc, 1, 1, c], w2)
        let bb1 = m.addConstant([oc], b1), bb2 = m.addConstant([oc], b2)
        let options: [(slot: Int, value: FBField)] = [(0, .int8(0)), (1, .int32(1)), (2, .int32(1))]
        m.addOperator(code: Op.conv2D, inputs: [x, f1, bb1], outputs: [y1], optionsType: Options.conv2D, options: options)
        m.addOperator(code: Op.conv2D, inputs: [x, f2, bb2], outputs: [y2], optionsType: Options.conv2D, options: options)
        m.addOperator(code: Op.add, inputs: [y1, y2], outputs: [z], optionsType: Options.add, options: [(0, .int8(0))])
        m.inputs = [x]
        m.outputs = [z]
        let program = try Model(bytes: m.serialize()).program
        XCTAssertEqual(program.operations.map(\.summary), ["CONV_2D 1x1/1 (gemm)", "CONV_2D 1x1/1 (gemm)+ADD"])
        assertClose(try runModel(m.serialize(), [input])[0], zip(c1, c2).map(+), 1e-5)
    }

    func testHalfPrecisionWeightsForFewOutputPixels() throws {
        // Weights that are half-precision values, used for 2x2 output pixels: packed as halves,
        // with the same results as float32 weights.
        var r = TestRandom(state: 15)
        let (h, w, c, oc) = (2, 2, 40, 24)
        let input = r.floats(h * w * c), bias = r.floats(oc)
        let weights = r.floats(oc * c).map { ($0 * 1024).rounded() / 1024 }
        let t = ConvCase(h: h, w: w, c: c, oc: oc, kh: 1, kw: 1, stride: 1, dilation: 1, same: true, activation: 0)
        let expected = Self.referenceConv(t, input, weights, bias, depthwise: false).out
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

    func testZeroPadIsFoldedIntoTheFollowingConvolution() throws {
        var r = TestRandom(state: 12)
        let (h, w, c) = (5, 6, 3)
        let input = r.floats(h * w * c), weights = r.floats(9 * c), bias = r.floats(c)
        // Pad rows (1, 2) and columns (2, 0) explicitly, then a VALID stride-2 depthwise 3x3.
        let (ph, pw) = (h + 3, w + 2)
        var padded = [Float](repeating: 0, count: ph * pw * c)
        for y in 0..<h { for x in 0..<w { for ch in 0..<c { padded[((y + 1) * pw + x + 2) * c + ch] = input[(y * w + x) * c + ch] } } }
        let t = ConvCase(h: ph, w: pw, c: c, oc: c, kh: 3, kw: 3, stride: 2, dilation: 1, same: false, activation: 0)
        let (expected, oh, ow) = Self.referenceConv(t, padded, weights, bias, depthwise: true)
        var m = TestModel()
        let x = m.addTensor([1, h, w, c]), pads = m.addInts([4, 2], [0, 0, 1, 2, 2, 0, 0, 0]), mid = m.addTensor([1, ph, pw, c])
        let f = m.addConstant([1, 3, 3, c], weights), b = m.addConstant([c], bias), y = m.addTensor([1, oh, ow, c])
        m.addOperator(code: Op.pad, inputs: [x, pads], outputs: [mid])
        m.addOperator(code: Op.depthwiseConv2D, inputs: [mid, f, b], outputs: [y], optionsType: Options.depthwiseConv2D,
                      options: [(0, .int8(1)), (1, .int32(2)), (2, .int32(2)), (3, .int32(1))])
        m.inputs = [x]
        m.outputs = [y]
        XCTAssertEqual(try Model(bytes: m.serialize()).program.operations.count, 1, "PAD should be folded")
        assertClose(try runModel(m.serialize(), [input])[0], expected, 1e-5)
    }

    func testZeroPadReadByTwoConvolutionsIsFoldedIntoBoth() throws {
        var r = TestRandom(state: 13)
        let (h, w, c) = (6, 5, 8)
        let input = r.floats(h * w * c)
        let weights = [r.floats(9 * c), r.floats(9 * c)], bias = [r.floats(c), r.floats(c)]
        // Pad rows (1, 1) and columns (1, 1), then two VALID stride-2 depthwise 3x3 convolutions.
        let (ph, pw) = (h + 2, w + 2)
        var padded = [Float](repeating: 0, count: ph * pw * c)
        for y in 0..<h { for x in 0..<w { for ch in 0..<c { padded[((y + 1) * pw + x + 1) * c + ch] = input[(y * w + x) * c + ch] } } }
        let t = ConvCase(h: ph, w: pw, c: c, oc: c, kh: 3, kw: 3, stride: 2, dilation: 1, same: false, activation: 0)
        let expected = (0..<2).map { Self.referenceConv(t, padded, weights[$0], bias[$0], depthwise: true) }
        let (oh, ow) = (expected[0].1, expected[0].2)
        for padIsOutput in [false, true] {
            var m = TestModel()
            let x = m.addTensor([1, h, w, c]), pads = m.addInts([4, 2], [0, 0, 1, 1, 1, 1, 0, 0]), mid = m.addTensor([1, ph, pw, c])
            m.addOperator(code: Op.pad, inputs: [x, pads], outputs: [mid])
            var outputs: [Int32] = []
            for q in 0..<2 {
                let f = m.addConstant([1, 3, 3, c], weights[q]), b = m.addConstant([c], bias[q]), y = m.addTensor([1, oh, ow, c])
                m.addOperator(code: Op.depthwiseConv2D, inputs: [mid, f, b], outputs: [y], optionsType: Options.depthwiseConv2D,
                              options: [(0, .int8(1)), (1, .int32(2)), (2, .int32(2)), (3, .int32(1))])
                outputs.append(y)
            }
            m.inputs = [x]
            m.outputs = outputs + (padIsOutput ? [mid] : [])
            // A PAD whose result is also a graph output stays.
            XCTAssertEqual(try Model(bytes: m.serialize()).program.operations.count, padIsOutput ? 3 : 2)
            let results = try runModel(m.serialize(), [input])
            assertClose(results[0], expected[0].0, 1e-5, "first, pad output \(padIsOutput)")
            assertClose(results[1], expected[1].0, 1e-5, "second, pad output \(padIsOutput)")
            if padIsOutput { assertClose(results[2], padded, 0) }
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

    // MARK: Pooling and layout

    func testMaxPoolSamePadding() throws {
        var m = TestModel()
        let x = m.addTensor([1, 3, 3, 1]), y = m.addTensor([1, 2, 2, 1])
        m.addOperator(code: Op.maxPool2D, inputs: [x], outputs: [y], optionsType: Options.pool2D,
                      options: [(0, .int8(0)), (1, .int32(2)), (2, .int32(2)), (3, .int32(2)), (4, .int32(2))])
        m.inputs = [x]
        m.outputs = [y]
        XCTAssertEqual(try runModel(m.serialize(), [[-9, -8, -7, -6, -5, -4, -3, -2, -1]])[0], [-5, -4, -2, -1])
    }

    func testPadConcatenationAndDepthToSpace() throws {
        var m = TestModel()
        let x = m.addTensor([1, 2, 2, 1]), pads = m.addInts([4, 2], [0, 0, 1, 0, 0, 1, 0, 1]), y = m.addTensor([1, 3, 3, 2])
        m.addOperator(code: Op.pad, inputs: [x, pads], outputs: [y])
        m.inputs = [x]
        m.outputs = [y]
        XCTAssertEqual(try runModel(m.serialize(), [[1, 2, 3, 4]])[0],
                       [0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 3, 0, 4, 0, 0, 0])

        var c = TestModel()
        let a = c.addTensor([2, 2]), k = c.addConstant([2, 1], [9, 8]), z = c.addTensor([2, 3])
        c.addOperator(code: Op.concatenation, inputs: [a, k], outputs: [z], optionsType: Options.concatenation,
                      options: [(0, .int32(-1)), (1, .int8(0))])
        c.inputs = [a]
        c.outputs = [z]
        XCTAssertEqual(try runModel(c.serialize(), [[1, 2, 3, 4]])[0], [1, 2, 9, 3, 4, 8])

        var d = TestModel()
        let i = d.addTensor([1, 1, 2, 4]), o = d.addTensor([1, 2, 4, 1])
        d.addOperator(code: Op.depthToSpace, inputs: [i], outputs: [o], optionsType: Options.depthToSpace, options: [(0, .int32(2))])
        d.inputs = [i]
        d.outputs = [o]
        // Pixel (0,0) channels a b c d -> [[a b] [c d]], pixel (0,1) e f g h -> [[e f] [g h]].
        XCTAssertEqual(try runModel(d.serialize(), [[1, 2, 3, 4, 5, 6, 7, 8]])[0], [1, 2, 5, 6, 3, 4, 7, 8])
    }

    func testReductions() throws {
        let input: [Float] = [1, 5, 3, 4, 2, 6] // [1, 2, 3]
        func reduce(_ code: Int32, axes: [Int32], keep: Bool, out: [Int]) throws -> [Float] {
            var m = TestModel()
            let x = m.addTensor([1, 2, 3]), a = m.addInts([axes.count], axes), y = m.addTensor(out)
            m.addOperator(code: code, inputs: [x, a], outputs: [y], optionsType: Options.reducer, options: [(0, .bool(keep))])
            m.inputs = [x]
            m.outputs = [y]
            return try runModel(m.serialize(), [input])[0]
        }
        XCTAssertEqual(try reduce(Op.mean, axes: [1], keep: true, out: [1, 1, 3]), [2.5, 3.5, 4.5])
        XCTAssertEqual(try reduce(Op.reduceMax, axes: [-1], keep: false, out: [1, 2]), [5, 6])
        XCTAssertEqual(try reduce(Op.reduceMin, axes: [1, 2], keep: false, out: [1]), [1])
        XCTAssertThrowsError(try reduce(Op.mean, axes: [3], keep: false, out: [1]))
    }

    func testGatherUnpackAndStridedSlice() throws {
        let input: [Float] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] // [1, 4, 3]
        var g = TestModel()
        let x = g.addTensor([1, 4, 3]), idx = g.addInts([2], [3, 1]), y = g.addTensor([1, 2, 3])
        g.addOperator(code: Op.gather, inputs: [x, idx], outputs: [y], optionsType: Options.gather, options: [(0, .int32(-2))])
        g.inputs = [x]
        g.outputs = [y]
        XCTAssertEqual(try runModel(g.serialize(), [input])[0], [9, 10, 11, 3, 4, 5])
        var bad = g
        bad.tensors[Int(idx)] = TestModel.Tensor(shape: [2], type: 2, buffer: bad.addBuffer(le(Int32(4)) + le(Int32(0))))
        assertModelError(bad.serialize()) { "\($0)".contains("index 4 out of range") }

        var u = TestModel()
        let ux = u.addTensor([1, 4, 3])
        let parts = (0..<3).map { _ in u.addTensor([1, 4]) }
        u.addOperator(code: Op.unpack, inputs: [ux], outputs: parts, optionsType: Options.unpack, options: [(0, .int32(3)), (1, .int32(-1))])
        u.inputs = [ux]
        u.outputs = parts
        XCTAssertEqual(try runModel(u.serialize(), [input]), [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11]])

        // x[0, 3:0:-2, 1] with the first axis shrunk: rows 3 and 1 of column 1.
        var s = TestModel()
        let sx = s.addTensor([1, 4, 3])
        let begin = s.addInts([3], [0, 3, 1]), end = s.addInts([3], [1, 0, 2]), step = s.addInts([3], [1, -2, 1])
        let sy = s.addTensor([2, 1])
        s.addOperator(code: Op.stridedSlice, inputs: [sx, begin, end, step], outputs: [sy], optionsType: Options.stridedSlice,
                      options: [(0, .int32(0)), (1, .int32(0)), (4, .int32(1))])
        s.inputs = [sx]
        s.outputs = [sy]
        XCTAssertEqual(try runModel(s.serialize(), [input])[0], [10, 4])
        // begin/end masks take whole dimensions.
        var t = TestModel()
        let tx = t.addTensor([1, 4, 3])
        let tb = t.addInts([3], [0, 9, 2]), te = t.addInts([3], [0, -9, 3]), ts = t.addInts([3], [1, 1, 1]), ty = t.addTensor([1, 4, 1])
        t.addOperator(code: Op.stridedSlice, inputs: [tx, tb, te, ts], outputs: [ty], optionsType: Options.stridedSlice,
                      options: [(0, .int32(3)), (1, .int32(3))])
        t.inputs = [tx]
        t.outputs = [ty]
        XCTAssertEqual(try runModel(t.serialize(), [input])[0], [2, 5, 8, 11])
    }

    // MARK: Load-time constants

    func testDequantizeFloat16AndInt8AreFoldedAtLoad() throws {
        var m = TestModel()
        let x = m.addTensor([1, 4])
        let half = m.addTensor([4], type: 1, data: [0x3c00, 0xc000, 0x3800, 0x0000].flatMap { le(UInt16($0)) }) // 1, -2, 0.5, 0
        let deq = m.addTensor([4])
        let y = m.addTensor([1, 4])
        m.addOperator(code: Op.dequantize, inputs: [half], outputs: [deq])
        m.addOperator(code: Op.add, inputs: [x, deq], outputs: [y], optionsType: Options.add, options: [(0, .int8(0))])
        m.inputs = [x]
        m.outputs = [y]
        let model = try Model(bytes: m.serialize())
        XCTAssertEqual(model.program.operations.count, 1, "DEQUANTIZE runs at load time")
        XCTAssertEqual(model.operatorCounts.map(\.name), ["DEQUANTIZE", "ADD"])
        XCTAssertEqual(try runModel(m.serialize(), [[10, 10, 10, 10]])[0], [11, 8, 10.5, 10])

        // int8 with per-channel scales along dimension 1: real = scale * (q - zero_point).
        var q = TestModel()
        let qx = q.addTensor([2, 2])
        let quantized = q.addTensor([2, 2], type: 9, data: [Int8(4), -2, 10, 3].map { UInt8(bitPattern: $0) })
        let scale: FBObject = .table([(2, .object(.floats([0.5, 2]))), (3, .object(.vector(elementSize: 8, bytes: le(Int64(0)) + le(Int64(1))))),
                                      (6, .int32(1))])
        q.tensors[Int(quantized)].extraFields = [(4, .object(scale))]
        let qd = q.addTensor([2, 2]), qy = q.addTensor([2, 2])
        q.addOperator(code: Op.dequantize, inputs: [quantized], outputs: [qd])
        q.addOperator(code: Op.add, inputs: [qx, qd], outputs: [qy], optionsType: Options.add, options: [(0, .int8(0))])
        q.inputs = [qx]
        q.outputs = [qy]
        XCTAssertEqual(try runModel(q.serialize(), [[0, 0, 0, 0]])[0], [2, -6, 5, 4])
    }

    /// A [3, 4] matrix stored as CSR: rows dense, columns sparse.
    func sparseModel(segments: [Int32], indices: [Int32], values: [Float]) -> [UInt8] {
        var m = TestModel()
        let x = m.addTensor([3, 4])
        let sparse = m.addTensor([3, 4], data: values.flatMap { le($0.bitPattern) })
        let dense: FBObject = .table([(0, .int8(0)), (1, .int32(3))])
        let csr: FBObject = .table([(0, .int8(1)), (2, .uint8(1)), (3, .object(.table([(0, .object(.int32s(segments)))]))),
                                    (4, .uint8(1)), (5, .object(.table([(0, .object(.int32s(indices)))])))])
        let sparsity: FBObject = .table([(0, .object(.int32s([0, 1]))), (2, .object(.tables([dense, csr])))])
        m.tensors[Int(sparse)].extraFields = [(6, .object(sparsity))]
        let d = m.addTensor([3, 4]), y = m.addTensor([3, 4])
        m.addOperator(code: Op.densify, inputs: [sparse], outputs: [d])
        m.addOperator(code: Op.add, inputs: [x, d], outputs: [y], optionsType: Options.add, options: [(0, .int8(0))])
        m.inputs = [x]
        m.outputs = [y]
        return m.serialize()
    }

    func testDensifyExpandsCSRWeights() throws {
        let bytes = sparseModel(segments: [0, 2, 2, 3], indices: [1, 3, 0], values: [5, 6, 7])
        XCTAssertEqual(try runModel(bytes, [[Float](repeating: 0, count: 12)])[0], [0, 5, 0, 6, 0, 0, 0, 0, 7, 0, 0, 0])
        assertModelError(sparseModel(segments: [0, 2, 9, 3], indices: [1, 3, 0], values: [5, 6, 7])) { "\($0)".contains("segment") }
        assertModelError(sparseModel(segments: [0, 2, 2, 3], indices: [1, 4, 0], values: [5, 6, 7])) { "\($0)".contains("index 4 out of range") }
        assertModelError(sparseModel(segments: [0, 2, 2, 3], indices: [1, 3, 0], values: [5, 6])) { "\($0)".contains("value index") }
    }
}
