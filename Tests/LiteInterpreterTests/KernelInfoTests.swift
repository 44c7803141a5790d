import Foundation
@_spi(Apps) import LiteInterpreter
import XCTest

final class KernelInfoTests: XCTestCase {
    func testActiveLevelIsDetectedByDefault() {
        XCTAssertEqual(KernelInstructionSet.active, KernelInstructionSet.detected)
        #if arch(arm64)
        XCTAssertEqual(KernelInstructionSet.detected, .neon)
        #endif
    }

    /// `VISION_TASKS_KERNELS=garbage` (or `AVX2`, or `neon` on x86-64) is ignored by the
    /// dispatch; `vision-tasks` warns with this text instead of ignoring it without a word.
    func testIgnoredKernelLevelRequestsAreExplained() throws {
        XCTAssertNil(KernelInstructionSet.environmentProblem(nil, detected: .avx512))
        // Honoured: the dispatch settled on the level asked for.
        XCTAssertNil(KernelInstructionSet.environmentProblem("portable", detected: .portable))
        XCTAssertNil(KernelInstructionSet.environmentProblem("avx2", detected: .avx2FMA))
        XCTAssertNil(KernelInstructionSet.environmentProblem("avx512", detected: .avx512))
        XCTAssertNil(KernelInstructionSet.environmentProblem("neon", detected: .neon))
        for typo in ["garbage", "AVX2", "avx-512", "", " avx2"] {
            let problem = try XCTUnwrap(KernelInstructionSet.environmentProblem(typo, detected: .avx512), typo)
            XCTAssertTrue(problem.contains("is not a kernel level (portable, avx2, avx512, neon); ignored, the kernels run avx512"), problem)
        }
        // Known names the CPU cannot run.
        let neon = try XCTUnwrap(KernelInstructionSet.environmentProblem("neon", detected: .avx2FMA))
        XCTAssertTrue(neon.contains("does not run the neon kernels; ignored, the kernels run avx2+fma"), neon)
        XCTAssertNotNil(KernelInstructionSet.environmentProblem("avx512", detected: .avx2FMA))
        XCTAssertNotNil(KernelInstructionSet.environmentProblem("avx2", detected: .neon))
        // This process: whatever the variable holds, the answer agrees with what the dispatch did.
        let value = ProcessInfo.processInfo.environment["VISION_TASKS_KERNELS"]
        let problem = KernelInstructionSet.environmentProblem(value, detected: .detected)
        if let value, let asked = KernelInstructionSet.environmentNames.first(where: { $0.name == value })?.level {
            XCTAssertEqual(problem == nil, asked == KernelInstructionSet.detected)
        } else if value == nil {
            XCTAssertNil(problem)
        }
    }
}
