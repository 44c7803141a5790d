import Foundation
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

final class DispatchDetectionTests: XCTestCase {
    /// On Linux the detected level follows the CPU flags the kernel reports: AVX-512 exactly
    /// when avx512f, vl, bw and dq are all there (with avx2, fma and f16c), AVX2 when only those.
    func testDetectedLevelMatchesProcCPUInfo() throws {
        #if os(Linux) && arch(x86_64)
        if let cap = ProcessInfo.processInfo.environment["VISION_TASKS_KERNELS"] {
            throw XCTSkip("VISION_TASKS_KERNELS=\(cap) lowers the detected level")
        }
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let line = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { throw XCTSkip("/proc/cpuinfo has no flags line") }
        let flags = Set(line.split(separator: " ").map(String.init))
        let avx2 = ["avx2", "fma", "f16c"].allSatisfy(flags.contains)
        let avx512 = avx2 && ["avx512f", "avx512vl", "avx512bw", "avx512dq"].allSatisfy(flags.contains)
        XCTAssertEqual(ck_detected_isa(), avx512 ? CK_ISA_AVX512 : avx2 ? CK_ISA_AVX2_FMA : CK_ISA_PORTABLE)
        #else
        throw XCTSkip("reads the x86-64 flags of /proc/cpuinfo")
        #endif
    }

    /// Every level below the detected one that the CPU runs can be forced, and the others are
    /// refused; the detected level is restored at the end.
    func testEverySupportedLevelCanBeForced() {
        let detected = ck_detected_isa()
        defer { XCTAssertEqual(ck_set_isa(detected), 1) }
        let supported: [ck_isa]
        switch detected {
        case CK_ISA_AVX512: supported = [CK_ISA_PORTABLE, CK_ISA_AVX2_FMA, CK_ISA_AVX512]
        case CK_ISA_AVX2_FMA: supported = [CK_ISA_PORTABLE, CK_ISA_AVX2_FMA]
        case CK_ISA_NEON: supported = [CK_ISA_PORTABLE, CK_ISA_NEON]
        default: supported = [CK_ISA_PORTABLE]
        }
        for level in [CK_ISA_PORTABLE, CK_ISA_AVX2_FMA, CK_ISA_NEON, CK_ISA_AVX512] {
            let expected: Int32 = supported.contains(level) ? 1 : 0
            XCTAssertEqual(ck_set_isa(level), expected, "level \(level.rawValue)")
            if expected == 1 { XCTAssertEqual(ck_active_isa(), level) }
        }
    }
}
