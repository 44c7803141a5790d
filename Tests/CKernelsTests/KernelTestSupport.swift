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

    /// Every SIMD dispatch level this CPU runs, the best last: AVX2/FMA, and AVX-512 where the
    /// CPU has it (x86-64); NEON (arm64). Empty on a CPU without SIMD kernels.
    static var simdLevels: [ck_isa] {
        let detected = ck_detected_isa()
        defer { ck_set_isa(detected) }
        return [CK_ISA_AVX2_FMA, CK_ISA_AVX512, CK_ISA_NEON].filter { ck_set_isa($0) == 1 }
    }

    /// A level's name for failure messages.
    static func levelName(_ isa: ck_isa) -> String {
        switch isa {
        case CK_ISA_AVX2_FMA: return "avx2"
        case CK_ISA_AVX512: return "avx512"
        case CK_ISA_NEON: return "neon"
        default: return "portable"
        }
    }

    /// Runs `body` with the portable kernels forced, then at each SIMD level this CPU supports
    /// (`simdLevels`: on an AVX-512 CPU both AVX2 and AVX-512), and returns every result; the
    /// detected level is active again afterwards. Skips when the CPU has no SIMD level.
    func portableAndEachSIMD<T>(_ body: () -> T) throws -> (portable: T, simd: [(level: String, result: T)]) {
        let detected = ck_detected_isa()
        let levels = Self.simdLevels
        guard !levels.isEmpty else { throw XCTSkip("this CPU has no SIMD kernels to compare") }
        defer { XCTAssertEqual(ck_set_isa(detected), 1) }
        XCTAssertEqual(ck_set_isa(CK_ISA_PORTABLE), 1)
        let portable = body()
        let simd = levels.map { level -> (level: String, result: T) in
            XCTAssertEqual(ck_set_isa(level), 1)
            return (Self.levelName(level), body())
        }
        return (portable, simd)
    }

    /// Skips (with a message) unless this CPU runs the AVX-512 kernels; the tests that compare
    /// AVX-512 with AVX2 and the portable kernels call it first.
    func requireAVX512() throws {
        guard Self.simdLevels.contains(CK_ISA_AVX512) else {
            throw XCTSkip("this CPU has no AVX-512 (F, VL, BW, DQ): the AVX-512 kernels are not run; the AVX2 ones are checked by the other tests")
        }
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

/// Failures noted by threads other than the test's, read once they have finished (the first 20).
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.withLock { if items.count < 20 { items.append(item) } } }
    var all: [String] { lock.withLock { items } }
}
