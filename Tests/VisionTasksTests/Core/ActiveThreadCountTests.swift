import Foundation
import MediaIO
import TestSupport
@_spi(Apps) import VisionTasks
import XCTest

/// A task's active thread count (what a server lowers while sessions share the cores): clamped
/// to 1 ... `numThreads`, and results exactly the same whatever it is.
final class ActiveThreadCountTests: XCTestCase {
    private func image(_ name: String) throws -> MPImage {
        try MPImage(contentsOf: SharedTestData.file("media/\(name)"))
    }

    /// Sets `count` through `set`, checks what `get` reports, and returns `run`'s result.
    private func result<R>(
        at count: Int, expecting reported: Int, set: (Int) -> Void, get: () -> Int, run: () throws -> R
    ) rethrows -> R {
        set(count)
        XCTAssertEqual(get(), reported, "active threads after setting \(count)")
        return try run()
    }

    func testGestureRecognizerResultsDoNotDependOnTheActiveThreads() throws {
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = try SharedTestData.referenceModels().appendingPathComponent("gesture_recognizer.task").path
        options.baseOptions.numThreads = 2
        options.numHands = 2
        let recognizer = try GestureRecognizer(options: options)
        XCTAssertEqual(recognizer.activeThreadCount, 2, "all threads at first")
        let picture = try image("hands_two_open_palm_and_hanging.jpg")
        let set = { recognizer.activeThreadCount = $0 }, get = { recognizer.activeThreadCount }
        let all = try result(at: 2, expecting: 2, set: set, get: get) { try recognizer.recognize(image: picture) }
        XCTAssertEqual(all.landmarks.count, 2, "the photo's two hands")
        for (count, reported) in [(1, 1), (0, 1), (-3, 1), (7, 2), (1, 1)] {
            let again = try result(at: count, expecting: reported, set: set, get: get) { try recognizer.recognize(image: picture) }
            XCTAssertEqual(again, all, "\(count) active threads")
        }
    }

    func testHandLandmarkerResultsDoNotDependOnTheActiveThreads() throws {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = try SharedTestData.installedModel("hand_landmarker.task").path
        options.baseOptions.numThreads = 2
        let landmarker = try HandLandmarker(options: options)
        let picture = try image("hand_victory_right_01.jpg")
        let set = { landmarker.activeThreadCount = $0 }, get = { landmarker.activeThreadCount }
        let all = try result(at: 2, expecting: 2, set: set, get: get) { try landmarker.detect(image: picture) }
        XCTAssertEqual(all.landmarks.count, 1)
        let one = try result(at: 1, expecting: 1, set: set, get: get) { try landmarker.detect(image: picture) }
        XCTAssertEqual(one, all)
    }

    func testPoseLandmarkerResultsDoNotDependOnTheActiveThreads() throws {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = try SharedTestData.installedModel("pose_landmarker_full.task").path
        options.baseOptions.numThreads = 2
        let landmarker = try PoseLandmarker(options: options)
        let picture = try image("pose_fullbody_yoga_warrior.jpg")
        let set = { landmarker.activeThreadCount = $0 }, get = { landmarker.activeThreadCount }
        let all = try result(at: 2, expecting: 2, set: set, get: get) { try landmarker.detect(image: picture) }
        XCTAssertEqual(all.landmarks.count, 1)
        let one = try result(at: 1, expecting: 1, set: set, get: get) { try landmarker.detect(image: picture) }
        XCTAssertEqual(one.landmarks, all.landmarks)
        XCTAssertEqual(one.worldLandmarks, all.worldLandmarks)
    }

    func testOneThreadTaskStaysAtOne() throws {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = try SharedTestData.installedModel("hand_landmarker.task").path
        options.baseOptions.numThreads = 1
        let landmarker = try HandLandmarker(options: options)
        landmarker.activeThreadCount = 4
        XCTAssertEqual(landmarker.activeThreadCount, 1)
    }
}
