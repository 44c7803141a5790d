import Foundation
import TestSupport
import VisionTasks
@testable import VisionTasksCLI
import VisionTasksModelInstaller
import XCTest

final class ModelProvisioningTests: XCTestCase {
    /// With the models installed, a command gets the store without any install (no pip is run).
    func testInstalledModelsNeedNoInstall() throws {
        let folder = try SharedTestData.installedModels()
        _ = try SharedTestData.installedModel("hand_landmarker.task")
        let saved = ProcessInfo.processInfo.environment["VISION_TASKS_PYTHON"]
        setenv("VISION_TASKS_PYTHON", "/nonexistent/python", 1)
        defer {
            if let saved { setenv("VISION_TASKS_PYTHON", saved, 1) } else { unsetenv("VISION_TASKS_PYTHON") }
        }
        let store = try ModelProvisioning.ensureInstalled([.handLandmarkerBundle, .poseDetection], directory: folder)
        XCTAssertEqual(store.directory, folder)
        XCTAssertTrue(store.isInstalled(.handLandmarkerBundle))
    }

    /// A missing model starts an install; here pip cannot run, and the installer's error comes through.
    func testMissingModelStartsAnInstall() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("prov-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let saved = ProcessInfo.processInfo.environment["VISION_TASKS_PYTHON"]
        setenv("VISION_TASKS_PYTHON", "/nonexistent/python", 1)
        defer {
            if let saved { setenv("VISION_TASKS_PYTHON", saved, 1) } else { unsetenv("VISION_TASKS_PYTHON") }
        }
        XCTAssertThrowsError(try ModelProvisioning.ensureInstalled([.poseDetection], directory: folder)) { error in
            guard case .pythonNotFound("/nonexistent/python")? = error as? ModelInstallerError else {
                return XCTFail("unexpected \(error)")
            }
        }
    }
}
