import LiteInterpreter
import XCTest

final class KernelInfoTests: XCTestCase {
    func testActiveLevelIsDetectedByDefault() {
        XCTAssertEqual(KernelInstructionSet.active, KernelInstructionSet.detected)
        #if arch(arm64)
        XCTAssertEqual(KernelInstructionSet.detected, .neon)
        #endif
    }
}
