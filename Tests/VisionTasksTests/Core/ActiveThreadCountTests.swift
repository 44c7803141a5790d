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

    /// Runs `run` at each active count of `counts` (asked, then reported) and checks that every
    /// result equals the first; returns the first.
    @discardableResult
    private func assertSameResults<R: Equatable>(
        _ counts: [(asked: Int, reported: Int)], set: (Int) -> Void, get: () -> Int, run: () throws -> R,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> R? {
        var first: R?
        for (asked, reported) in counts {
            set(asked)
            XCTAssertEqual(get(), reported, "active threads after asking for \(asked)", file: file, line: line)
            let result = try run()
            if let first {
                XCTAssertEqual(result, first, "\(asked) active threads", file: file, line: line)
            } else {
                first = result
            }
        }
        return first
    }

    func testGestureRecognizerResultsDoNotDependOnTheActiveThreads() throws {
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = try SharedTestData.referenceModels().appendingPathComponent("gesture_recognizer.task").path
        options.baseOptions.numThreads = 2
        options.numHands = 2
        let recognizer = try GestureRecognizer(options: options)
        XCTAssertEqual(recognizer.activeThreadCount, 2, "all threads at first")
        let picture = try image("hands_two_open_palm_and_hanging.jpg")
        let result = try assertSameResults(
            [(2, 2), (1, 1), (0, 1), (-3, 1), (7, 2), (1, 1)], set: { recognizer.activeThreadCount = $0 },
            get: { recognizer.activeThreadCount }, run: { try recognizer.recognize(image: picture) })
        XCTAssertEqual(result?.landmarks.count, 2, "the photo's two hands")
    }

    func testLandmarkerResultsDoNotDependOnTheActiveThreads() throws {
        let hands = HandLandmarkerOptions()
        hands.baseOptions.modelAssetPath = try SharedTestData.installedModel("hand_landmarker.task").path
        hands.baseOptions.numThreads = 2
        let handLandmarker = try HandLandmarker(options: hands)
        let handPicture = try image("hand_victory_right_01.jpg")
        let hand = try assertSameResults(
            [(2, 2), (1, 1)], set: { handLandmarker.activeThreadCount = $0 }, get: { handLandmarker.activeThreadCount },
            run: { try handLandmarker.detect(image: handPicture) })
        XCTAssertEqual(hand?.landmarks.count, 1)

        let poses = PoseLandmarkerOptions()
        poses.baseOptions.modelAssetPath = try SharedTestData.installedModel("pose_landmarker_full.task").path
        poses.baseOptions.numThreads = 2
        let poseLandmarker = try PoseLandmarker(options: poses)
        let posePicture = try image("pose_fullbody_yoga_warrior.jpg")
        let pose = try assertSameResults(
            [(2, 2), (1, 1)], set: { poseLandmarker.activeThreadCount = $0 }, get: { poseLandmarker.activeThreadCount },
            run: { try poseLandmarker.detect(image: posePicture) })
        XCTAssertEqual(pose?.landmarks.count, 1)
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
