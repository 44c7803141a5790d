import Foundation
import VisionTasks
import XCTest

final class ModelStoreTests: XCTestCase {
    func testPathsAndDefaultDirectory() {
        let store = ModelStore(directory: URL(fileURLWithPath: "/models"))
        XCTAssertEqual(store.path(for: .gestureRecognizerBundle).path, "/models/gesture_recognizer.task")
        XCTAssertEqual(store.path(for: .handLandmarkFull).path, "/models/hand_landmark_full.tflite")

        let saved = ProcessInfo.processInfo.environment["VISION_TASKS_MODELS"]
        defer {
            if let saved { setenv("VISION_TASKS_MODELS", saved, 1) } else { unsetenv("VISION_TASKS_MODELS") }
        }
        setenv("VISION_TASKS_MODELS", "/somewhere/models", 1)
        XCTAssertEqual(ModelStore.defaultDirectory.path, "/somewhere/models")
        unsetenv("VISION_TASKS_MODELS")
        XCTAssertEqual(ModelStore.defaultDirectory.path,
                       FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/vision-tasks/models").path)
    }
}
