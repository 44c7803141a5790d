import CKernels
import XCTest

/// A small deterministic generator (SplitMix64) so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e3779b97f4a7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58476d1ce4e5b9
        z = (z ^ (z >> 27)) &* 0x94d049bb133111eb
        return z ^ (z >> 31)
    }
}

extension XCTestCase {
    func randomFloats(_ count: Int, _ generator: inout SeededGenerator, in range: ClosedRange<Float> = -1...1) -> [Float] {
        (0..<count).map { _ in Float.random(in: range, using: &generator) }
    }

    /// Runs `body` with the portable kernels forced, then with the detected (SIMD) ones, and
    /// returns both results. Skips the comparison when the CPU has no SIMD level.
    func portableAndDetected<T>(_ body: () -> T) throws -> (portable: T, simd: T) {
        let detected = ck_detected_isa()
        guard detected != CK_ISA_PORTABLE else { throw XCTSkip("this CPU has no SIMD kernels to compare") }
        XCTAssertEqual(ck_set_isa(CK_ISA_PORTABLE), 1)
        let portable = body()
        XCTAssertEqual(ck_set_isa(detected), 1)
        let simd = body()
        return (portable, simd)
    }

    func assertClose(_ a: [Float], _ b: [Float], tolerance: Float, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, message, file: file, line: line)
        var worst: Float = 0
        var at = 0
        for i in 0..<min(a.count, b.count) {
            let error = abs(a[i] - b[i]) / max(1, abs(b[i]))
            if !(error <= worst) { worst = error; at = i }
        }
        XCTAssertLessThanOrEqual(worst, tolerance, "\(message): worst relative difference \(worst) at \(at) (\(a[at]) vs \(b[at]))", file: file, line: line)
    }
}
