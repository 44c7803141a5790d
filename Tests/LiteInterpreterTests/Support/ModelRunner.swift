@testable import LiteInterpreter
import XCTest

/// Runs a model built in a test on the given inputs (`pruneChannels: false`: as stored, see
/// `ChannelPruning`).
func runModel(_ bytes: [UInt8], _ inputs: [[Float]], threads: Int = 1, pruneChannels: Bool = true) throws -> [[Float]] {
    let model = try Model(bytes: bytes, pruneChannels: pruneChannels)
    return try outputs(of: try Interpreter(model: model, options: .init(threadCount: threads)), inputs)
}

/// Copies `inputs` into the interpreter, invokes it and returns every output.
func outputs(of interpreter: Interpreter, _ inputs: [[Float]]) throws -> [[Float]] {
    for (i, values) in inputs.enumerated() { try interpreter.copy(values, toInputAt: i) }
    try interpreter.invoke()
    return try (0..<interpreter.outputTensorCount).map { try interpreter.output(at: $0).floats }
}

/// Asserts that loading `bytes` throws a `ModelError` matching `check`.
func assertModelError(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line,
                      _ check: (ModelError) -> Bool = { _ in true }) {
    do {
        _ = try Model(bytes: bytes)
        XCTFail("the model loaded", file: file, line: line)
    } catch let error as ModelError {
        XCTAssertTrue(check(error), "unexpected error: \(error)", file: file, line: line)
    } catch {
        XCTFail("not a ModelError: \(error)", file: file, line: line)
    }
}

func assertClose(_ a: [Float], _ b: [Float], _ tolerance: Float = 1e-5, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, "count \(message)", file: file, line: line)
    for (i, (x, y)) in zip(a, b).enumerated() where !(abs(x - y) <= tolerance * max(1, abs(y))) {
        XCTFail("element \(i): \(x) vs \(y) \(message)", file: file, line: line)
        return
    }
}

/// A deterministic generator for test data.
struct TestRandom {
    var state: UInt64
    mutating func next() -> Float {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Float(state >> 40) / Float(1 << 24) * 2 - 1
    }
    mutating func floats(_ count: Int) -> [Float] { (0..<count).map { _ in next() } }
}
