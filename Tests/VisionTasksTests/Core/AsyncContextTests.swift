import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// MediaPipe's guides call the synchronous task methods (`detect(image:)`,
/// `recognize(videoFrame:timestampInMilliseconds:)`, ...). Ported into an `async` function
/// (a SwiftUI task, a server handler, an async test), that code must compile and run as it
/// is, without `await`. The first test is written exactly that way: if any task had an `async`
/// method with a MediaPipe method's full name, Swift would pick it in these `async` functions
/// and this file would not compile ("expression is 'async' but is not marked with 'await'").
/// The second test checks that the Swift-concurrency forms, `detect(_:)` /
/// `recognize(_:)` and their `timestampInMilliseconds:` siblings, give the same results.
final class AsyncContextTests: XCTestCase {
    private func picture(_ name: String) throws -> MPImage {
        try MPImage(contentsOf: SharedTestData.file("reference/\(name).pixels.png"))
    }

    private func handBundle() throws -> String {
        try SharedTestData.installedModel("hand_landmarker.task").path
    }

    private func gestureBundle() throws -> String {
        try SharedTestData.installedModel("gesture_recognizer.task").path
    }

    private func poseBundle() throws -> String {
        try SharedTestData.installedModel("pose_landmarker_full.task").path
    }

    func testMediaPipeGuideCallsCompileUnchangedInAsyncFunctions() async throws {
        let image = try picture("hand_victory_right_01")

        // HandLandmarker, as in MediaPipe's iOS guide.
        let handLandmarker = try HandLandmarker(modelPath: try handBundle())
        let hands = try handLandmarker.detect(image: image)
        XCTAssertEqual(hands.landmarks.count, 1)
        let handOptions = HandLandmarkerOptions()
        handOptions.baseOptions.modelAssetPath = try handBundle()
        handOptions.runningMode = .video
        let handTracker = try HandLandmarker(options: handOptions)
        let handFrame = try handTracker.detect(videoFrame: image, timestampInMilliseconds: 0)
        XCTAssertEqual(handFrame.landmarks, hands.landmarks, "the first video frame is an image-mode run")

        // GestureRecognizer.
        let gestureRecognizer = try GestureRecognizer(modelPath: try gestureBundle())
        let gestures = try gestureRecognizer.recognize(image: image)
        XCTAssertEqual(gestures.gestures.first?.first?.categoryName, "Victory")
        let gestureOptions = GestureRecognizerOptions()
        gestureOptions.baseOptions.modelAssetPath = try gestureBundle()
        gestureOptions.runningMode = .video
        let gestureTracker = try GestureRecognizer(options: gestureOptions)
        let gestureFrame = try gestureTracker.recognize(videoFrame: image, timestampInMilliseconds: 0)
        XCTAssertEqual(gestureFrame.gestures, gestures.gestures)

        // PoseLandmarker.
        let person = try picture("pose_fullbody_frisbee")
        let poseLandmarker = try PoseLandmarker(modelPath: try poseBundle())
        let poses = try poseLandmarker.detect(image: person)
        XCTAssertEqual(poses.landmarks.count, 1)
        let poseOptions = PoseLandmarkerOptions()
        poseOptions.baseOptions.modelAssetPath = try poseBundle()
        poseOptions.runningMode = .video
        let poseTracker = try PoseLandmarker(options: poseOptions)
        let poseFrame = try poseTracker.detect(videoFrame: person, timestampInMilliseconds: 0)
        XCTAssertEqual(poseFrame.landmarks.count, 1)
    }

    func testSwiftConcurrencyFormsGiveTheSynchronousResults() async throws {
        let image = try picture("hands_two_open_palm_and_hanging")

        let handOptions = HandLandmarkerOptions()
        handOptions.baseOptions.modelAssetPath = try handBundle()
        handOptions.numHands = 2
        let handLandmarker = try HandLandmarker(options: handOptions)
        let hands = try await handLandmarker.detect(image)
        XCTAssertEqual(hands.landmarks.count, 2)
        XCTAssertEqual(hands, try handLandmarker.detect(image: image))
        handOptions.runningMode = .video
        let handTracker = try HandLandmarker(options: handOptions)
        let handFrame = try await handTracker.detect(image, timestampInMilliseconds: 40)
        XCTAssertEqual(handFrame.landmarks, hands.landmarks)
        XCTAssertEqual(handFrame.timestampInMilliseconds, 40)
        do {
            _ = try await handTracker.detect(image, timestampInMilliseconds: 40)
            XCTFail("a repeated timestamp is refused")
        } catch {
            XCTAssertEqual(error as? TasksError, .nonMonotonicTimestamp(previousMilliseconds: 40, receivedMilliseconds: 40))
        }
        do {
            _ = try await handTracker.detect(image)
            XCTFail("the image form needs image mode")
        } catch {
            XCTAssertEqual((error as? TasksError)?.code, .invalidArgumentError)
        }

        let gestureRecognizer = try GestureRecognizer(modelPath: try gestureBundle())
        let gestures = try await gestureRecognizer.recognize(image)
        XCTAssertEqual(gestures, try gestureRecognizer.recognize(image: image))

        let person = try picture("pose_fullbody_frisbee")
        let poseLandmarker = try PoseLandmarker(modelPath: try poseBundle())
        let poses = try await poseLandmarker.detect(person)
        XCTAssertEqual(poses, try poseLandmarker.detect(image: person))
    }
}
