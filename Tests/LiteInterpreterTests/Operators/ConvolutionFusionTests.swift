@testable import LiteInterpreter
import XCTest

/// What the model loader folds into a convolution (PRELU, a residual ADD, a zero PAD) or moves
/// around it (a 1x1 convolution before an upscaling RESIZE_BILINEAR), the cases it must leave as
/// they are, and the results both ways against reference computations.
final class ConvolutionFusionTests: XCTestCase {
    func testPReLUFusedIntoConvolutionAndStandalone() throws {
        var r = TestRandom(state: 9)
        let (h, w, c, oc) = (4, 5, 6, 7)
        let input = r.floats(h * w * c), weights = r.floats(oc * c), bias = r.floats(oc), slopes = r.floats(oc).map { abs($0) }
        let t = ConvCase(h: h, w: w, c: c, oc: oc, kh: 1, kw: 1, stride: 1, dilation: 1, same: true, activation: 0)
        let (conv, _, _) = referenceConv(t, input, weights, bias, depthwise: false)
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
        let (conv, _, _) = referenceConv(t, input, weights, bias, depthwise: false) // RELU6
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

    func testResidualAddNeedsItsOtherOperandFirst() throws {
        // ADD(conv1(x), conv2(x)): conv2 runs after conv1, so only conv2 can take the ADD.
        var r = TestRandom(state: 14)
        let (h, w, c, oc) = (3, 4, 5, 17)
        let input = r.floats(h * w * c), w1 = r.floats(oc * c), w2 = r.floats(oc * c), b1 = r.floats(oc), b2 = r.floats(oc)
        let t = ConvCase(h: h, w: w, c: c, oc: oc, kh: 1, kw: 1, stride: 1, dilation: 1, same: true, activation: 0)
        let c1 = referenceConv(t, input, w1, b1, depthwise: false).out, c2 = referenceConv(t, input, w2, b2, depthwise: false).out
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
            return referenceConv(t, resized, weights, bias, depthwise: false).out
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

    func testZeroPadIsFoldedIntoTheFollowingConvolution() throws {
        var r = TestRandom(state: 12)
        let (h, w, c) = (5, 6, 3)
        let input = r.floats(h * w * c), weights = r.floats(9 * c), bias = r.floats(c)
        // Pad rows (1, 2) and columns (2, 0) explicitly, then a VALID stride-2 depthwise 3x3.
        let (ph, pw) = (h + 3, w + 2)
        var padded = [Float](repeating: 0, count: ph * pw * c)
        for y in 0..<h { for x in 0..<w { for ch in 0..<c { padded[((y + 1) * pw + x + 2) * c + ch] = input[(y * w + x) * c + ch] } } }
        let t = ConvCase(h: ph, w: pw, c: c, oc: c, kh: 3, kw: 3, stride: 2, dilation: 1, same: false, activation: 0)
        let (expected, oh, ow) = referenceConv(t, padded, weights, bias, depthwise: true)
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
        let expected = (0..<2).map { referenceConv(t, padded, weights[$0], bias[$0], depthwise: true) }
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

    func testLargeExpansionRunsInBandsWithItsDepthwiseConvolution() throws {
        // A 64x128 image expanded from 16 to 64 channels: 2 MiB, the smallest that runs in bands.
        try checkExpansionAndDepthwise(h: 64, w: 128, c: 16, oc: 64, seed: 21, way: "in bands")
    }

    func testSmallExpansionRunsByChannelsWithItsDepthwiseConvolution() throws {
        // 7x7 and 8x8 images (few rows: their depthwise layers split channels between threads),
        // with channel counts that end in a whole group of 32, in one panel of 16 and in part of
        // one; a 14x14 image stays two operators.
        try checkExpansionAndDepthwise(h: 7, w: 7, c: 24, oc: 96, seed: 22, way: "by channels")
        try checkExpansionAndDepthwise(h: 8, w: 8, c: 16, oc: 48, seed: 23, way: "by channels")
        try checkExpansionAndDepthwise(h: 7, w: 5, c: 8, oc: 40, seed: 24, way: "by channels")
        try checkExpansionAndDepthwise(h: 14, w: 14, c: 16, oc: 64, seed: 25, way: nil)
        // Sparse expansions (one in four weights nonzero) over one tile of the sparse kernel.
        try checkExpansionAndDepthwise(h: 7, w: 7, c: 64, oc: 160, sparse: true, seed: 26, way: "by channels")
        try checkExpansionAndDepthwise(h: 8, w: 8, c: 48, oc: 72, sparse: true, seed: 27, way: "by channels")
        try checkExpansionAndDepthwise(h: 8, w: 9, c: 48, oc: 72, sparse: true, seed: 28, way: nil)
    }

    /// An h x w x c image expanded to oc channels (RELU6; with `sparse`, three in four weights
    /// zero) and read by one depthwise layer (3x3 stride 2, then 5x5 stride 1): fused `way` (nil:
    /// not fused), the results are those of the two layers run one after the other (the
    /// expansion also a graph output) bit for bit, at 1 and 2 threads, and close to a
    /// double-precision reference.
    func checkExpansionAndDepthwise(h: Int, w: Int, c: Int, oc: Int, sparse: Bool = false, seed: UInt64, way: String?,
                                    file: StaticString = #filePath, line: UInt = #line) throws {
        var r = TestRandom(state: seed)
        let input = r.floats(h * w * c), bias = r.floats(oc)
        let weights = r.floats(oc * c).enumerated().map { !sparse || $0.offset % 4 == 0 ? $0.element : 0 }
        let expansion = ConvCase(h: h, w: w, c: c, oc: oc, kh: 1, kw: 1, stride: 1, dilation: 1, same: true, activation: 3)
        let expanded = referenceConv(expansion, input, weights, bias, depthwise: false).out // RELU6
        for (kernel, stride) in [(3, 2), (5, 1)] {
            let dwWeights = r.floats(kernel * kernel * oc), dwBias = r.floats(oc)
            let t = ConvCase(h: h, w: w, c: oc, oc: oc, kh: kernel, kw: kernel, stride: stride, dilation: 1, same: true, activation: 0)
            let (expected, oh, ow) = referenceConv(t, expanded, dwWeights, dwBias, depthwise: true)
            func model(expansionIsOutput: Bool) -> [UInt8] {
                var m = TestModel()
                let x = m.addTensor([1, h, w, c]), f = m.addConstant([oc, 1, 1, c], weights), b = m.addConstant([oc], bias)
                let mid = m.addTensor([1, h, w, oc]), df = m.addConstant([1, kernel, kernel, oc], dwWeights)
                let db = m.addConstant([oc], dwBias), y = m.addTensor([1, oh, ow, oc])
                m.addOperator(code: Op.conv2D, inputs: [x, f, b], outputs: [mid], optionsType: Options.conv2D,
                              options: [(0, .int8(0)), (1, .int32(1)), (2, .int32(1)), (3, .int8(3))])
                m.addOperator(code: Op.depthwiseConv2D, inputs: [mid, df, db], outputs: [y], optionsType: Options.depthwiseConv2D,
                              options: [(0, .int8(0)), (1, .int32(Int32(stride))), (2, .int32(Int32(stride))), (3, .int32(1))])
                m.inputs = [x]
                m.outputs = expansionIsOutput ? [y, mid] : [y]
                return m.serialize()
            }
            let fused = model(expansionIsOutput: false), separate = model(expansionIsOutput: true)
            let operations = try Model(bytes: fused).program.operations
            let summaries = operations.map(\.summary)
            let separateExpansion = try Model(bytes: separate).program.operations.first { $0.summary.hasPrefix("CONV_2D") }
            XCTAssertEqual(separateExpansion?.summary.contains("sparse"), sparse, "the expansion's weights", file: file, line: line)
            if let fusedPair = operations.first as? ExpansionDepthwiseOperation {
                XCTAssertEqual(fusedPair.expansion.summary.contains("sparse"), sparse, "the fused expansion's weights", file: file, line: line)
            }
            if let way {
                XCTAssertEqual(summaries, ["CONV_2D 1x1 + DEPTHWISE_CONV_2D \(kernel)x\(kernel)/\(stride) (\(way))"], file: file, line: line)
            } else {
                XCTAssertEqual(summaries.count, 2, "\(h)x\(w): not fused", file: file, line: line)
            }
            XCTAssertEqual(try Model(bytes: separate).program.operations.count, 2, "an expansion read elsewhere stays", file: file, line: line)
            let reference = try runModel(separate, [input])[0]
            assertClose(reference, expected, 1e-4, "\(h)x\(w), \(kernel)x\(kernel)/\(stride) against the reference", file: file, line: line)
            for threads in [1, 2] {
                let results = try runModel(fused, [input], threads: threads)[0]
                XCTAssertEqual(results.count, reference.count, file: file, line: line)
                XCTAssertTrue(zip(results, reference).allSatisfy { $0.bitPattern == $1.bitPattern },
                              "\(h)x\(w), \(kernel)x\(kernel)/\(stride) at \(threads) threads: not the two layers' bits", file: file, line: line)
            }
        }
    }
}
