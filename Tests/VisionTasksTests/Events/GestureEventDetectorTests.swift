import XCTest

@testable import VisionTasks

final class GestureEventDetectorTests: XCTestCase {
    private typealias H = SyntheticHand

    /// Runs `frames` (gesture name per frame, nil: no hand) at 30 fps through a detector fed
    /// recognizer results of a still hand with identifier 1.
    private func kinds(_ frames: [String?], options: GestureEventOptions = GestureEventOptions()) throws
        -> [(GestureEvent.Kind, Int)]
    {
        let detector = try GestureEventDetector(options: options)
        var out: [(GestureEvent.Kind, Int)] = []
        for (i, gesture) in frames.enumerated() {
            let shape = gesture == "Thumb_Down" ? H.thumbDown : H.thumbUp
            let hands = gesture == nil ? [] : [H.landmarks(shape, x: 320, y: 300)]
            let result = H.result(hands, gestures: gesture.map { [$0] } ?? [], ids: gesture == nil ? [] : [1], time: i * 33)
            out += detector.process(result, imageWidth: H.width, imageHeight: H.height).map { ($0.kind, i) }
        }
        return out
    }

    func testThumbsNeedThreeFramesAndFireOncePerHold() throws {
        let frames: [String?] =
            Array(repeating: "Thumb_Up", count: 30) + Array(repeating: "None", count: 30)
            + Array(repeating: "Thumb_Down", count: 30)
        let events = try kinds(frames)
        XCTAssertEqual(events.map(\.0), [.thumbsUp, .thumbsDown])
        // Completed on the third frame of each gesture.
        XCTAssertEqual(events.map(\.1), [2, 62])
    }

    func testBlipsOfOneAndTwoFramesDoNotFire() throws {
        let frames: [String?] = ["None", "Thumb_Up", "None", "None", "Thumb_Up", "Thumb_Up", "None", "Thumb_Down", nil, "None"]
        XCTAssertTrue(try kinds(frames).isEmpty)
    }

    func testRearmsOnlyAfterLeavingTheGesture() throws {
        // A one-frame dropout within a hold is not leaving it; three frames are.
        let hold = Array(repeating: "Thumb_Up" as String?, count: 20)
        let frames = hold + ["None"] + hold + ["None", "None", "None"] + hold
        XCTAssertEqual(try kinds(frames).map(\.0), [.thumbsUp, .thumbsUp])
        var options = GestureEventOptions()
        options.repeatIntervalMilliseconds = 300
        options.cooldownMilliseconds = 0
        // Held 61 frames (2 s): fires at frame 2 and then every ≥ 300 ms.
        XCTAssertEqual(try kinds(Array(repeating: "Thumb_Up", count: 61), options: options).map(\.1), [2, 12, 22, 32, 42, 52])
    }

    func testLandmarkRuleSeparatesThumbsFromARaisedOpenHand() throws {
        let detector = try GestureEventDetector()
        var events: [GestureEvent] = []
        for i in 0..<10 {
            let shape = i < 5 ? H.openPalm : H.thumbUp
            let result = HandLandmarkerResult(
                landmarks: [H.landmarks(shape, x: 300, y: 300)], worldLandmarks: [[]],
                handedness: [[ResultCategory(index: 1, score: 0.9, categoryName: "Left", displayName: "Left")]],
                timestampInMilliseconds: i * 33, handIdentifiers: [4])
            events += detector.process(result, imageWidth: H.width, imageHeight: H.height)
        }
        XCTAssertEqual(events, [GestureEvent(kind: .thumbsUp, handIdentifier: 4, handedness: "Left", timestampInMilliseconds: 7 * 33)])
    }

    /// An open hand moving `dx` pixels per frame for `frames` frames.
    private func swipe(dx: Float, frames: Int, options: GestureEventOptions = GestureEventOptions()) throws -> [GestureEvent] {
        let detector = try GestureEventDetector(options: options)
        var events: [GestureEvent] = []
        for i in 0..<frames {
            let hand = H.landmarks(H.openPalm, x: 100 + dx * Float(i), y: 300)
            events += detector.process(
                H.result([hand], gestures: ["Open_Palm"], ids: [2], time: i * 33), imageWidth: H.width,
                imageHeight: H.height)
        }
        return events
    }

    func testSwipeDirectionsAreTheUsersOwn() throws {
        // 40 px per frame, hand size 60: 1.5 hand sizes after 3 frames of motion.
        XCTAssertEqual(try swipe(dx: 40, frames: 10).map(\.kind), [.swipeLeft])
        XCTAssertEqual(try swipe(dx: 40, frames: 10).map(\.timestampInMilliseconds), [3 * 33])
        var mirrored = GestureEventOptions()
        mirrored.inputIsMirrored = true
        XCTAssertEqual(try swipe(dx: 40, frames: 10, options: mirrored).map(\.kind), [.swipeRight])
        XCTAssertEqual(try swipe(dx: -40, frames: 10).map(\.kind), [.swipeRight])
        // Too slow: 3 px per frame is 1.05 hand sizes in 700 ms.
        XCTAssertTrue(try swipe(dx: 3, frames: 40).isEmpty)
    }

    func testOneFrameJumpIsNoSwipe() throws {
        let detector = try GestureEventDetector()
        var events: [GestureEvent] = []
        for i in 0..<20 {
            let x: Float = i == 10 ? 400 : 100
            events += detector.process(
                H.result([H.landmarks(H.openPalm, x: x, y: 300)], gestures: ["Open_Palm"], ids: [2], time: i * 33),
                imageWidth: H.width, imageHeight: H.height)
        }
        XCTAssertTrue(events.isEmpty)
    }

    func testHandsAreKeptApartByIdentifier() throws {
        let detector = try GestureEventDetector()
        var events: [GestureEvent] = []
        for i in 0..<6 {
            // Hand 7 shows a thumbs up; hand 8 appears beside it only from frame 3.
            let hands = [H.landmarks(H.thumbUp, x: 200, y: 300)] + (i >= 3 ? [H.landmarks(H.thumbUp, x: 450, y: 300)] : [])
            let result = H.result(hands, gestures: hands.map { _ in "Thumb_Up" }, ids: i >= 3 ? [7, 8] : [7], time: i * 33)
            events += detector.process(result, imageWidth: H.width, imageHeight: H.height)
        }
        XCTAssertEqual(events.map(\.handIdentifier), [7, 8])
        XCTAssertEqual(events.map(\.timestampInMilliseconds), [66, 165])
    }

    private final class Recorder: GestureEventDetectorDelegate {
        var events: [GestureEvent] = []
        func gestureEventDetector(_ detector: GestureEventDetector, didDetect event: GestureEvent) {
            events.append(event)
        }
    }

    func testDelegateAndAsyncSequenceSeeTheSameEvents() async throws {
        let detector = try GestureEventDetector()
        let recorder = Recorder()
        detector.delegate = recorder
        let stream = detector.events()
        var returned: [GestureEvent] = []
        for i in 0..<5 {
            let result = H.result([H.landmarks(H.thumbDown, x: 300, y: 200)], gestures: ["Thumb_Down"], ids: [1], time: i * 40)
            returned += detector.process(result, imageWidth: H.width, imageHeight: H.height)
        }
        detector.finish()
        var streamed: [GestureEvent] = []
        for await event in stream { streamed.append(event) }
        XCTAssertEqual(returned.map(\.kind), [.thumbsDown])
        XCTAssertEqual(recorder.events, returned)
        XCTAssertEqual(streamed, returned)
    }

    /// Results reach the detector as the caller built or decoded them, so their timestamps are
    /// any `Int`: `Int.min` after `Int.max` (time going backwards) or `Int.max` after `Int.min`
    /// must not trap on an overflow in the cooldown and swipe-window arithmetic. Going backwards
    /// starts a new stream and far-apart times saturate.
    func testExtremeAndBackwardTimestampsNeverTrap() throws {
        let detector = try GestureEventDetector()
        var events: [GestureEvent] = []
        for time in [Int.max - 66, Int.max - 33, Int.max, Int.min, Int.min + 33, 0] {
            let result = H.result([H.landmarks(H.thumbUp, x: 320, y: 300)], gestures: ["Thumb_Up"], ids: [1], time: time)
            events += detector.process(result, imageWidth: H.width, imageHeight: H.height)
        }
        // Fired at the third frame; the jump back to Int.min is a new stream, which fires again
        // on its own third frame.
        XCTAssertEqual(events.map(\.timestampInMilliseconds), [Int.max, 0])
        // An open hand far apart in time: the window arithmetic saturates instead of trapping.
        detector.reset()
        for time in [Int.min, Int.max, Int.max] {
            let result = H.result([H.landmarks(H.openPalm, x: 100, y: 300)], gestures: ["Open_Palm"], ids: [2], time: time)
            XCTAssertTrue(detector.process(result, imageWidth: H.width, imageHeight: H.height).isEmpty)
        }
        XCTAssertEqual(HandEventTracker.elapsed(from: Int.min, to: Int.max), Int.max)
        XCTAssertEqual(HandEventTracker.elapsed(from: Int.max, to: Int.min), Int.min)
        XCTAssertEqual(HandEventTracker.elapsed(from: 5, to: 2), -3)
    }

    func testJSONLineForm() throws {
        let event = GestureEvent(kind: .swipeRight, handIdentifier: 3, handedness: "Left", timestampInMilliseconds: 1200)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(event), as: UTF8.self)
        XCTAssertEqual(text, #"{"event":"swipeRight","hand":3,"handedness":"Left","timestampInMilliseconds":1200}"#)
        XCTAssertEqual(try JSONDecoder().decode(GestureEvent.self, from: Data(text.utf8)), event)
    }

    func testInvalidOptionsAreRefused() {
        var options = GestureEventOptions()
        options.minimumFrames = 0
        XCTAssertThrowsError(try GestureEventDetector(options: options))
        options = GestureEventOptions()
        options.swipeDistance = .nan
        XCTAssertThrowsError(try GestureEventDetector(options: options))
    }
}
