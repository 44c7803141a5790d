@testable import LiteInterpreter
import XCTest

/// Operators that move values without arithmetic: PAD, CONCATENATION, DEPTH_TO_SPACE, GATHER,
/// UNPACK and STRIDED_SLICE (negative steps, masks), and their load-time checks.
final class LayoutOperatorTests: XCTestCase {
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
}
