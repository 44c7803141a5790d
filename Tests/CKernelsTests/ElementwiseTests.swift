import CKernels
import XCTest

final class ElementwiseTests: XCTestCase {
    func binary(_ op: ck_binary_op, dims: [Int], aStrides: [Int], bStrides: [Int], a: [Float], b: [Float],
                lo: Float = -.infinity, hi: Float = .infinity, pool: OpaquePointer? = nil) -> [Float] {
        var params = ck_binary_params()
        params.op = op
        params.rank = dims.count
        withUnsafeMutableBytes(of: &params.dims) { r in for (i, v) in dims.enumerated() { r.storeBytes(of: v, toByteOffset: i * 8, as: Int.self) } }
        withUnsafeMutableBytes(of: &params.a_strides) { r in for (i, v) in aStrides.enumerated() { r.storeBytes(of: v, toByteOffset: i * 8, as: Int.self) } }
        withUnsafeMutableBytes(of: &params.b_strides) { r in for (i, v) in bStrides.enumerated() { r.storeBytes(of: v, toByteOffset: i * 8, as: Int.self) } }
        var out = [Float](repeating: 0, count: dims.reduce(1, *))
        a.withUnsafeBufferPointer { ap in
            b.withUnsafeBufferPointer { bp in
                out.withUnsafeMutableBufferPointer { op in
                    params.a = ap.baseAddress
                    params.b = bp.baseAddress
                    params.out = op.baseAddress
                    params.out_min = lo
                    params.out_max = hi
                    ck_binary(&params, pool)
                }
            }
        }
        return out
    }

    func testBroadcastingOperationsAgainstReference() throws {
        var g = SeededGenerator(seed: 21)
        // a: [5, 7, 13], b: [1, 7, 1] broadcast over the first and last dimensions.
        let a = randomFloats(5 * 7 * 13, &g), b = randomFloats(7, &g, in: 0.5...2)
        let ops: [(ck_binary_op, (Float, Float) -> Float)] = [
            (CK_BINARY_ADD, +), (CK_BINARY_SUB, -), (CK_BINARY_MUL, *), (CK_BINARY_DIV, /),
            (CK_BINARY_MAXIMUM, { max($0, $1) }), (CK_BINARY_MINIMUM, { min($0, $1) }),
            (CK_BINARY_PRELU, { $0 >= 0 ? $0 : $0 * $1 }),
        ]
        for (op, f) in ops {
            var expected = [Float]()
            for i in 0..<5 { for j in 0..<7 { for k in 0..<13 { expected.append(min(max(f(a[(i * 7 + j) * 13 + k], b[j]), -0.5), 0.5)) } } }
            let (portable, levels) = try portableAndEachSIMD {
                binary(op, dims: [5, 7, 13], aStrides: [91, 13, 1], bStrides: [0, 1, 0], a: a, b: b, lo: -0.5, hi: 0.5)
            }
            assertClose(portable, expected, tolerance: 1e-6, "portable op \(op)")
            for simd in levels { assertClose(simd.result, portable, tolerance: 1e-6, "\(simd.level) op \(op)") }
        }
    }

    func testBroadcastRowsSplitAcrossThreadsMatchOneThread() {
        // Rank 3 with broadcasting, large enough for the pool: every thread starts its rows from
        // its own first row's index.
        var g = SeededGenerator(seed: 25)
        let dims = [40, 33, 13]
        let a = randomFloats(40 * 33 * 13, &g), b = randomFloats(33 * 13, &g)
        let pool = ck_threadpool_create(3)
        defer { ck_threadpool_destroy(pool) }
        let single = binary(CK_BINARY_SUB, dims: dims, aStrides: [429, 13, 1], bStrides: [0, 13, 1], a: a, b: b)
        let threaded = binary(CK_BINARY_SUB, dims: dims, aStrides: [429, 13, 1], bStrides: [0, 13, 1], a: a, b: b, pool: pool)
        XCTAssertEqual(single, threaded)
        for i in [0, 12, 13, 428, 429, 5000, 17159] { XCTAssertEqual(single[i], a[i] - b[i % 429], "element \(i)") }
    }

    func testLargeRankOneProblemsSplitAcrossThreads() {
        var g = SeededGenerator(seed: 22)
        let n = 100_003
        let a = randomFloats(n, &g), b = randomFloats(n, &g)
        let pool = ck_threadpool_create(3)
        defer { ck_threadpool_destroy(pool) }
        let single = binary(CK_BINARY_ADD, dims: [n], aStrides: [1], bStrides: [1], a: a, b: b)
        let threaded = binary(CK_BINARY_ADD, dims: [n], aStrides: [1], bStrides: [1], a: a, b: b, pool: pool)
        XCTAssertEqual(single, threaded)
        XCTAssertEqual(single[n - 1], a[n - 1] + b[n - 1])
        let scalar = binary(CK_BINARY_MUL, dims: [n], aStrides: [1], bStrides: [0], a: a, b: [3], pool: pool)
        XCTAssertEqual(scalar[12345], a[12345] * 3)
    }

    func testLogisticSIMDMatchesPortable() throws {
        var g = SeededGenerator(seed: 23)
        // Odd count (tail), wide range including saturation and tiny values.
        var x = randomFloats(1003, &g, in: -20...20)
        x += [-100, -88, -87, -30, -1e-8, 0, 1e-8, 30, 88, 100]
        let (portable, levels) = try portableAndEachSIMD { () -> [Float] in
            var y = [Float](repeating: -1, count: x.count)
            ck_unary(CK_UNARY_LOGISTIC, x, &y, x.count, 0, 0)
            return y
        }
        for simd in levels {
            for (i, (p, s)) in zip(portable, simd.result).enumerated() {
                XCTAssertEqual(s, p, accuracy: 2e-7 * max(1, abs(p)), "\(simd.level), x = \(x[i])")
                XCTAssertTrue(s >= 0 && s <= 1, "\(simd.level), x = \(x[i]) gives \(s)")
            }
        }
    }

    func testSiLUEqualsItsOperatorsOneByOne() throws {
        // ck_silu must round exactly as MUL, ADD, LOGISTIC and MUL run separately, at every level.
        var g = SeededGenerator(seed: 24)
        for channels in [1, 8, 13, 16, 29, 128] {
            let rows = 3, n = rows * channels
            var x = randomFloats(n, &g, in: -20...20)
            x[0] = 0
            let scale = randomFloats(channels, &g, in: -2...2), shift = randomFloats(channels, &g)
            for (useScale, useShift) in [(true, true), (false, true), (true, false), (false, false)] {
                let (portable, levels) = try portableAndEachSIMD { () -> ([Float], [Float]) in
                    var y = x
                    if useScale { y = binary(CK_BINARY_MUL, dims: [rows, channels], aStrides: [channels, 1], bStrides: [0, 1], a: y, b: scale) }
                    if useShift { y = binary(CK_BINARY_ADD, dims: [rows, channels], aStrides: [channels, 1], bStrides: [0, 1], a: y, b: shift) }
                    var s = [Float](repeating: 0, count: n)
                    ck_unary(CK_UNARY_LOGISTIC, y, &s, n, 0, 0)
                    let chain = binary(CK_BINARY_MUL, dims: [n], aStrides: [1], bStrides: [1], a: y, b: s)
                    var fused = [Float](repeating: -1, count: n + 1)
                    scale.withUnsafeBufferPointer { sp in
                        shift.withUnsafeBufferPointer { hp in
                            ck_silu(x, useScale ? sp.baseAddress : nil, useShift ? hp.baseAddress : nil, &fused, n, channels)
                        }
                    }
                    XCTAssertEqual(fused[n], -1, "wrote past the end")
                    return (chain, Array(fused[0..<n]))
                }
                XCTAssertEqual(portable.1, portable.0, "portable, channels \(channels)")
                for simd in levels { XCTAssertEqual(simd.result.1, simd.result.0, "\(simd.level), channels \(channels)") }
            }
        }
        // A count that is not a multiple of the channels writes nothing.
        var out: [Float] = [7, 7, 7]
        ck_silu([1, 2, 3], nil, nil, &out, 3, 2)
        XCTAssertEqual(out, [7, 7, 7])
    }

    func testUnaryAndSoftmax() {
        let x: [Float] = [-3, -0.5, 0, 0.5, 3, 20]
        var y = [Float](repeating: 0, count: x.count)
        ck_unary(CK_UNARY_LOGISTIC, x, &y, x.count, 0, 0)
        for (v, r) in zip(y, x.map { 1 / (1 + exp(-$0)) }) { XCTAssertEqual(v, r, accuracy: 1e-6) }
        ck_unary(CK_UNARY_TANH, x, &y, x.count, 0, 0)
        for (v, r) in zip(y, x.map { tanh($0) }) { XCTAssertEqual(v, r, accuracy: 1e-6) }
        ck_unary(CK_UNARY_CLAMP, x, &y, x.count, -1, 1)
        XCTAssertEqual(y, [-1, -0.5, 0, 0.5, 1, 1])
        var s = [Float](repeating: 0, count: 6)
        ck_softmax(x, &s, 2, 3, 1)
        let e = [exp(-3 + 0.0), exp(-0.5), exp(0.0)].map { Float($0) }
        let sum = e.reduce(0, +)
        for i in 0..<3 { XCTAssertEqual(s[i], e[i] / sum, accuracy: 1e-6) }
        XCTAssertEqual(s[3...].reduce(0, +), 1, accuracy: 1e-6)
    }
}
