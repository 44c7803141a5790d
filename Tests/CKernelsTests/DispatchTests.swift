import CKernels
import XCTest

final class DispatchTests: XCTestCase {
    func testPortableCanAlwaysBeForcedAndRestored() {
        let detected = ck_detected_isa()
        XCTAssertEqual(ck_set_isa(CK_ISA_PORTABLE), 1)
        XCTAssertEqual(ck_active_isa(), CK_ISA_PORTABLE)
        XCTAssertEqual(ck_set_isa(detected), 1)
        XCTAssertEqual(ck_active_isa(), detected)
    }

    func testUnsupportedLevelIsRefused() {
        #if arch(x86_64)
        XCTAssertEqual(ck_set_isa(CK_ISA_NEON), 0)
        #elseif arch(arm64)
        XCTAssertEqual(ck_set_isa(CK_ISA_AVX2_FMA), 0)
        #endif
    }
}
