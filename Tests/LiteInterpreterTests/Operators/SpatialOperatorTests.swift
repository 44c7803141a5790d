@testable import LiteInterpreter
import XCTest

/// RESIZE_BILINEAR's coordinate conventions, MAX_POOL_2D with SAME padding, and the reductions
/// (MEAN, REDUCE_MAX, REDUCE_MIN), on small models built in the test.
final class SpatialOperatorTests: XCTestCase {
    private func resizeModel(align: Bool, half: Bool, size: [Int32]) -> [UInt8] {
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

    func testMaxPoolSamePadding() throws {
        var m = TestModel()
        let x = m.addTensor([1, 3, 3, 1]), y = m.addTensor([1, 2, 2, 1])
        m.addOperator(code: Op.maxPool2D, inputs: [x], outputs: [y], optionsType: Options.pool2D,
                      options: [(0, .int8(0)), (1, .int32(2)), (2, .int32(2)), (3, .int32(2)), (4, .int32(2))])
        m.inputs = [x]
        m.outputs = [y]
        XCTAssertEqual(try runModel(m.serialize(), [[-9, -8, -7, -6, -5, -4, -3, -2, -1]])[0], [-5, -4, -2, -1])
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
}
