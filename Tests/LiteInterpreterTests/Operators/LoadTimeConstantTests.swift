@testable import LiteInterpreter
import XCTest

/// DEQUANTIZE (float16, int8 with per-channel scales) and DENSIFY (CSR) of constants, which
/// the loader runs once at load time, and the typed errors of malformed sparse tensors.
final class LoadTimeConstantTests: XCTestCase {
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
    private func sparseModel(segments: [Int32], indices: [Int32], values: [Float]) -> [UInt8] {
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
