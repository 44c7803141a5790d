import Foundation
import TestSupport
import VisionTasks
@testable import VisionTasksModelInstaller
import XCTest

final class ModelStoreStatusTests: XCTestCase {
    func testEveryFileHasASourceAndEveryFlatFileAChecksum() {
        XCTAssertEqual(ModelFile.allCases.count, 14)
        for file in ModelFile.allCases {
            switch ModelManifest.source(of: file) {
            case .assembled:
                XCTAssertTrue(file.isBundle)
                XCTAssertNil(ModelManifest.sha256(of: file))
            case .wheel, .bundleMember:
                XCTAssertEqual(ModelManifest.sha256(of: file)?.count, 64, file.fileName)
            }
        }
    }

    func testStatuses() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try InstallFixture.copyInstalled([.gestureEmbedder], to: folder)
        let store = ModelStore(directory: folder)
        XCTAssertEqual(store.status(of: .gestureEmbedder), .installed)
        XCTAssertTrue(store.isInstalled(.gestureEmbedder))
        XCTAssertEqual(store.status(of: .poseDetection), .missing)
        XCTAssertEqual(store.status(of: .handLandmarkerBundle), .missing)

        try FileManager.default.createDirectory(at: store.path(for: .poseDetection), withIntermediateDirectories: true)
        XCTAssertEqual(store.status(of: .poseDetection), .damaged(reason: "a folder, not a file"))

        try Data("not a zip".utf8).write(to: store.path(for: .handLandmarkerBundle))
        guard case .damaged = store.status(of: .handLandmarkerBundle) else { return XCTFail("not a zip accepted") }

        // A bundle of non-models under the right names is not usable either.
        try FileManager.default.removeItem(at: store.path(for: .handLandmarkerBundle))
        try BundleAssembler.writeZip([("hand_detector.tflite", [1, 2, 3]), ("hand_landmarks_detector.tflite", [4, 5, 6])],
                                     to: store.path(for: .handLandmarkerBundle))
        guard case let .damaged(reason) = store.status(of: .handLandmarkerBundle) else { return XCTFail("non-models accepted") }
        XCTAssertTrue(reason.contains("not a TensorFlow Lite model"), reason)
        XCTAssertEqual(Set(store.unusableFiles()), Set(ModelFile.allCases).subtracting([.gestureEmbedder]))
    }
}
