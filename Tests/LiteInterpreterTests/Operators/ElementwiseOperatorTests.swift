@testable import LiteInterpreter
import XCTest

/// ADD, SUB, MUL, DIV, MAXIMUM with broadcasting and fused activations, the unary activations,
/// SOFTMAX, and the batch normalisation + SiLU chain fused into one pass, on models built in the
/// test and checked against straightforward reference computations.
final class ElementwiseOperatorTests: XCTestCase {
    private func binaryModel(_ code: Int32, _ optionsType: UInt8, a: [Int], b: [Int], out: [Int], activation: Int8 = 0, constantB: [Float]? = nil) -> [UInt8] {
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
}
