import Foundation
import HTTPTypes
import MediaIO
import NIOCore
import NIOWebSocket
import TaskRunner
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// Live WebSocket sessions: results equal to the library's, bad messages, limits.
final class LiveSessionTests: XCTestCase {
    static let sequence = [
        "hand_thumb_up_left_01.jpg", "hand_thumb_up_left_01.jpg", "hand_thumb_up_02_samples.jpg",
        "hand_thumb_down_right_02_selfie.jpg", "hand_thumb_down_right_02_selfie.jpg", "neg_banana.jpg",
    ]

    /// Frames sent one at a time (each after the previous answer) are all processed, and each
    /// answer equals a video-mode `GestureRecognizer` run on the same bytes and timestamps.
    func testResultsEqualTheLibrary() async throws {
        let server = try ServerFixture.server()
        let frames = try Self.sequence.enumerated().map { (i, name) in (timestamp: 1000 + i * 100, bytes: try ServerFixture.still(name)) }
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = server.configuration.models.gestureRecognizer
        options.runningMode = .video
        let recognizer = try GestureRecognizer(options: options)
        let images = try frames.map { try MPImage(data: $0.bytes) }
        let expected = try zip(frames, images).map { try recognizer.recognize(videoFrame: $1, timestampInMilliseconds: $0.timestamp) }
        let detector = try GestureEventDetector()
        let expectedEvents = zip(expected, images).map { detector.process($0, imageWidth: $1.width, imageHeight: $1.height) }

        try await server.withLive { _, port in
            try await liveSession(port: port) { reader, outbound in
                let ready = try await reader.next(type: "ready")
                XCTAssertEqual(ready["task"] as? String, "gesture")
                for (i, frame) in frames.enumerated() {
                    try await outbound.write(.binary(ServerFixture.frame(frame.bytes, timestamp: frame.timestamp)))
                    let answer = try await reader.next(type: "result")
                    XCTAssertEqual(answer["timestampInMilliseconds"] as? Int, frame.timestamp)
                    XCTAssertEqual(answer["frame"] as? Int, i + 1)
                    XCTAssertEqual(answer["droppedFrames"] as? Int, 0)
                    XCTAssertNotNil(answer["processingMilliseconds"] as? Double)
                    let decoded = try JSONDecoder().decode(
                        GestureRecognizerResult.self, from: JSONSerialization.data(withJSONObject: answer["gesture"] as Any))
                    XCTAssertEqual(decoded.gestures, expected[i].gestures, "frame \(i)")
                    XCTAssertEqual(decoded.handedness, expected[i].handedness, "frame \(i)")
                    XCTAssertEqual(decoded.landmarks, expected[i].landmarks, "frame \(i)")
                    XCTAssertEqual(decoded.worldLandmarks, expected[i].worldLandmarks, "frame \(i)")
                    XCTAssertEqual(answer["handIdentifiers"] as? [Int], expected[i].handIdentifiers, "frame \(i)")
                    let events = try JSONDecoder().decode(
                        [GestureEvent].self, from: JSONSerialization.data(withJSONObject: answer["events"] ?? []))
                    XCTAssertEqual(events, expectedEvents[i], "frame \(i)")
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
        XCTAssertEqual(expected[0].gestures.first?.first?.categoryName, "Thumb_Up")
        XCTAssertEqual(expected[3].gestures.first?.first?.categoryName, "Thumb_Down")
        XCTAssertFalse(expected[0].handIdentifiers.isEmpty, "video mode gives identifiers")
    }

    /// The first `count` frames of a shared video as live frames: JPEG bytes and the video's
    /// timestamps.
    static func videoFrames(_ name: String, count: Int) throws -> [(timestamp: Int, bytes: Data)] {
        let reader = try VideoReader(path: SharedTestData.file("media/\(name)").path)
        var frames: [(timestamp: Int, bytes: Data)] = []
        while frames.count < count, let frame = try reader.nextFrame() {
            frames.append((frame.timestampInMilliseconds, Data(try ImageEncoder.jpeg(frame.image))))
        }
        return frames
    }

    /// A result as a session encodes it (the CLI's JSON encoder), re-serialised with sorted keys
    /// so that two encodings compare as bytes.
    static func canonical(_ value: some Encodable) throws -> Data {
        try canonical(JSONSerialization.jsonObject(with: FrameRecord.makeEncoder().encode(value)))
    }

    static func canonical(_ object: Any?) throws -> Data {
        guard let object else { throw ServerFixture.TestFailure("no result in the answer") }
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// Streams `frames` on one session opened with `query` (after `options`, a JSON options
    /// message, when given), each frame after the previous answer: the `ready` answer in force
    /// for the frames and every result answer.
    static func stream(
        port: Int, query: String, options: String? = nil, frames: [(timestamp: Int, bytes: Data)]
    ) async throws -> (ready: [String: Any], results: [[String: Any]]) {
        let box = ResultBox<([String: Any], [[String: Any]])>()
        try await liveSession(port: port, query: query) { reader, outbound in
            var ready = try await reader.next(type: "ready")
            if let options {
                try await outbound.write(.text(options))
                ready = try await reader.next(type: "ready")
            }
            var results: [[String: Any]] = []
            for frame in frames {
                try await outbound.write(.binary(ServerFixture.frame(frame.bytes, timestamp: frame.timestamp)))
                results.append(try await reader.next(type: "result"))
            }
            box.value = (ready, results)
            try await outbound.close(.normalClosure, reason: nil)
        }
        guard let value = box.value else { throw ServerFixture.TestFailure("the session gave no answers") }
        return value
    }

    /// A video-mode `HandLandmarker` on the installed bundle with the session's options, and
    /// the event detector a session runs after it.
    static func handLandmarker(
        _ server: VisionServer, mirrored: Bool = false, smoothing: Bool = false
    ) throws -> (HandLandmarker, GestureEventDetector) {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = server.configuration.models.handLandmarker
        options.runningMode = .video
        options.inputIsMirrored = mirrored
        options.landmarkSmoothing = smoothing ? HandLandmarkSmoothing() : nil
        var events = GestureEventOptions()
        events.inputIsMirrored = mirrored
        return (try HandLandmarker(options: options), try GestureEventDetector(options: events))
    }

    /// What the library gives for `frames` (the same JPEG bytes and timestamps), per frame:
    /// the result's JSON, the identifiers and the events.
    static func expectedHands(
        _ server: VisionServer, _ frames: [(timestamp: Int, bytes: Data)], mirrored: Bool = false, smoothing: Bool = false
    ) throws -> [(result: HandLandmarkerResult, json: Data, events: [GestureEvent])] {
        let (landmarker, detector) = try handLandmarker(server, mirrored: mirrored, smoothing: smoothing)
        return try frames.map { frame in
            let image = try MPImage(data: frame.bytes)
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: frame.timestamp)
            return (result, try canonical(result), detector.process(result, imageWidth: image.width, imageHeight: image.height))
        }
    }

    /// Checks a hands session's answers against the library's results for the same frames.
    static func assertEqual(
        _ answers: [[String: Any]], _ expected: [(result: HandLandmarkerResult, json: Data, events: [GestureEvent])],
        _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(answers.count, expected.count, what, file: file, line: line)
        for (i, (answer, library)) in zip(answers, expected).enumerated() {
            XCTAssertEqual(answer["task"] as? String, "hands", file: file, line: line)
            XCTAssertEqual(answer["frame"] as? Int, i + 1, file: file, line: line)
            XCTAssertEqual(try canonical(answer["hands"]), library.json, "\(what): frame \(i)", file: file, line: line)
            XCTAssertEqual(answer["handIdentifiers"] as? [Int], library.result.handIdentifiers, "\(what): frame \(i)", file: file, line: line)
            let events = try JSONDecoder().decode([GestureEvent].self, from: JSONSerialization.data(withJSONObject: answer["events"] ?? []))
            XCTAssertEqual(events, library.events, "\(what): frame \(i)", file: file, line: line)
        }
    }

    /// task=hands and task=pose: each answer equals a video-mode `HandLandmarker` (with the
    /// event detector a session runs) or `PoseLandmarker` on the same bytes and timestamps,
    /// as JSON, with the same identifiers and events.
    func testHandsAndPoseResultsEqualTheLibrary() async throws {
        let server = try ServerFixture.server()
        let handFrames = try Self.videoFrames("video_hand_samples_test.mp4", count: 12)
        let poseFrames = try Self.videoFrames("video_pose_squats.mp4", count: 8)
        let hands = try Self.expectedHands(server, handFrames)
        XCTAssertGreaterThanOrEqual(hands.filter { !$0.result.landmarks.isEmpty }.count, 10, "the frames show a hand")
        XCTAssertFalse(hands.last?.result.handIdentifiers.isEmpty ?? true, "video mode gives identifiers")

        let poseOptions = PoseLandmarkerOptions()
        poseOptions.baseOptions.modelAssetPath = server.configuration.models.poseLandmarker
        poseOptions.runningMode = .video
        let poseLandmarker = try PoseLandmarker(options: poseOptions)
        let poses = try poseFrames.map { frame in
            try poseLandmarker.detect(videoFrame: MPImage(data: frame.bytes), timestampInMilliseconds: frame.timestamp)
        }
        XCTAssertTrue(poses.allSatisfy { $0.landmarks.count == 1 }, "one person in every frame")

        try await server.withLive { _, port in
            let handSession = try await Self.stream(port: port, query: "task=hands", frames: handFrames)
            XCTAssertEqual(handSession.ready["task"] as? String, "hands")
            try Self.assertEqual(handSession.results, hands, "task=hands")

            let poseSession = try await Self.stream(port: port, query: "task=pose", frames: poseFrames)
            XCTAssertEqual(poseSession.ready["task"] as? String, "pose")
            XCTAssertEqual(poseSession.results.count, poses.count)
            for (i, (answer, result)) in zip(poseSession.results, poses).enumerated() {
                XCTAssertEqual(answer["task"] as? String, "pose")
                XCTAssertEqual(answer["timestampInMilliseconds"] as? Int, poseFrames[i].timestamp)
                XCTAssertEqual(try Self.canonical(answer["pose"]), try Self.canonical(PoseRecord(result)), "task=pose: frame \(i)")
                XCTAssertEqual(answer["poseIdentifiers"] as? [Int], result.poseIdentifiers, "task=pose: frame \(i)")
                XCTAssertNil(answer["events"], "pose sessions have no events")
            }
        }
    }

    /// The sessions' over-time options take effect, in the URL and in an options message:
    /// `mirrored=true` reports the other side for every hand (landmarks unchanged) and
    /// `smoothing=true` changes the landmarks after the first frame; each session equals the
    /// library with the same options on the same frames.
    func testMirroredAndSmoothingOptionsTakeEffect() async throws {
        let server = try ServerFixture.server()
        let frames = try Self.videoFrames("video_hand_samples_test.mp4", count: 12)
        let plain = try Self.expectedHands(server, frames)
        let mirrored = try Self.expectedHands(server, frames, mirrored: true)
        let smoothed = try Self.expectedHands(server, frames, smoothing: true)
        let both = try Self.expectedHands(server, frames, mirrored: true, smoothing: true)

        try await server.withLive { _, port in
            let unmirrored = try await Self.stream(port: port, query: "task=hands", frames: frames)
            try Self.assertEqual(unmirrored.results, plain, "task=hands")

            // mirrored=true in the URL: the other side, the same landmarks.
            let flipped = try await Self.stream(port: port, query: "task=hands&mirrored=true", frames: frames)
            XCTAssertEqual(flipped.ready["mirrored"] as? Bool, true)
            try Self.assertEqual(flipped.results, mirrored, "task=hands&mirrored=true")
            var sides = 0
            for (a, b) in zip(unmirrored.results, flipped.results) {
                let handsA = a["hands"] as? [String: Any], handsB = b["hands"] as? [String: Any]
                XCTAssertEqual(try Self.canonical(handsA?["landmarks"]), try Self.canonical(handsB?["landmarks"]))
                let namesA = (handsA?["handedness"] as? [[[String: Any]]] ?? []).map { $0.first?["categoryName"] as? String }
                let namesB = (handsB?["handedness"] as? [[[String: Any]]] ?? []).map { $0.first?["categoryName"] as? String }
                XCTAssertEqual(namesA.count, namesB.count)
                for (x, y) in zip(namesA, namesB) {
                    XCTAssertEqual(y, x == "Left" ? "Right" : "Left", "mirrored reports the other side")
                    sides += 1
                }
            }
            XCTAssertGreaterThanOrEqual(sides, 10)

            // smoothing=true in the URL: the first frame as it is, later frames smoothed.
            let smooth = try await Self.stream(port: port, query: "task=hands&smoothing=true", frames: frames)
            XCTAssertEqual(smooth.ready["smoothing"] as? Bool, true)
            try Self.assertEqual(smooth.results, smoothed, "task=hands&smoothing=true")
            // The largest coordinate difference between two answers' landmarks (normalised).
            func difference(_ a: [String: Any], _ b: [String: Any]) throws -> Float {
                func landmarks(_ answer: [String: Any]) throws -> [[NormalizedLandmark]] {
                    let object = (answer["hands"] as? [String: Any])?["landmarks"] ?? []
                    return try JSONDecoder().decode([[NormalizedLandmark]].self, from: JSONSerialization.data(withJSONObject: object))
                }
                let x = try landmarks(a), y = try landmarks(b)
                guard x.count == y.count else { return .infinity }
                return zip(x.joined(), y.joined()).map { max(abs($0.x - $1.x), abs($0.y - $1.y)) }.max() ?? 0
            }
            // The filter starts at the first value (up to float rounding from pixels and back).
            XCTAssertLessThan(try difference(smooth.results[0], unmirrored.results[0]), 1e-5, "the first frame passes the filter")
            let changes = try zip(smooth.results, unmirrored.results).dropFirst().map { try difference($0, $1) }
            print("smoothing=true: largest landmark change per frame after the first: \(changes)")
            XCTAssertGreaterThanOrEqual(changes.filter { $0 > 1e-3 }.count, 8, "smoothing changes the landmarks of a moving hand")

            // The same options as a JSON message (here also switching the task): both at once.
            let message = try await Self.stream(
                port: port, query: "task=gesture", options: #"{"task": "hands", "mirrored": true, "smoothing": true}"#, frames: frames)
            XCTAssertEqual(message.ready["task"] as? String, "hands")
            XCTAssertEqual(message.ready["mirrored"] as? Bool, true)
            XCTAssertEqual(message.ready["smoothing"] as? Bool, true)
            try Self.assertEqual(message.results, both, "options message")
        }
    }

    /// Frames sent faster than they are processed: only the newest waiting frame is kept, the
    /// others are counted as dropped, and the last frame sent is always answered.
    func testOnlyTheNewestWaitingFrameIsKept() async throws {
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        try await ServerFixture.server().withLive { _, port in
            try await liveSession(port: port, query: "task=hands") { reader, outbound in
                _ = try await reader.next(type: "ready")
                for i in 0..<12 {
                    try await outbound.write(.binary(ServerFixture.frame(jpeg, timestamp: i * 10)))
                }
                var answered: [Int] = []
                var dropped = 0
                while answered.last != 110 {
                    let answer = try await reader.next(type: "result")
                    answered.append(answer["timestampInMilliseconds"] as? Int ?? -1)
                    dropped = answer["droppedFrames"] as? Int ?? -1
                }
                XCTAssertLessThan(answered.count, 12, "some frames were replaced while the first was in work")
                XCTAssertEqual(answered.count + dropped, 12, "every frame is either answered or counted as dropped: \(answered)")
                XCTAssertEqual(answered, answered.sorted())
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    /// Bad messages get error answers and the session goes on; options can change the task.
    func testBadMessagesGetErrorsAndTheSessionGoesOn() async throws {
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        var huge = try ImageEncoder.png(PixelBuffer(width: 1, height: 1, format: .gray8, bytes: [0]))
        huge.replaceSubrange(16..<24, with: [0, 0, 0x13, 0x88, 0, 0, 0x13, 0x88])
        let hugePNG = Data(huge)
        try await ServerFixture.server().withLive { _, port in
            try await liveSession(port: port) { reader, outbound in
                _ = try await reader.next(type: "ready")
                let bad: [(LiveClient.Message, String)] = [
                    (.text("garbage {{{"), "badMessage"),
                    (.text("{\"numHands\": 42}"), "badOption"),
                    (.text(String(repeating: "x", count: 5000)), "badMessage"),
                    (.binary(ByteBuffer(bytes: [1, 2, 3])), "badMessage"),
                    (.binary(ServerFixture.frame(Data("not an image at all".utf8), timestamp: 1)), "badImage"),
                    (.binary(ServerFixture.frame(jpeg.prefix(jpeg.count / 3), timestamp: 2)), "badImage"),
                    (.binary(ServerFixture.frame(hugePNG, timestamp: 3)), "imageTooLarge"),
                ]
                for (message, code) in bad {
                    try await outbound.write(message)
                    let answer = try await reader.next(type: "error")
                    XCTAssertEqual((answer["error"] as? [String: Any])?["code"] as? String, code, "\(message)")
                }
                try await outbound.write(.binary(ServerFixture.frame(jpeg, timestamp: 100)))
                let answer = try await reader.next(type: "result")
XCTAssertEqual(answer["timestampInMilliseconds"] as? Int, 100)
                // A timestamp that does not increase is the task's error, for that frame only.
                try await outbound.write(.binary(ServerFixture.frame(jpeg, timestamp: 50)))
                let stale = try await reader.next(type: "error")
                XCTAssertEqual((stale["error"] as? [String: Any])?["code"] as? String, "taskFailed")
                // Options switch the task.
                try await outbound.write(.text("{\"task\": \"pose\", \"numPoses\": 2}"))
                let ready = try await reader.next(type: "ready")
                XCTAssertEqual(ready["task"] as? String, "pose")
                XCTAssertEqual(ready["numPoses"] as? Int, 2)
                try await outbound.write(.binary(ServerFixture.frame(try ServerFixture.still("pose_fullbody_yoga_warrior.jpg"), timestamp: 200)))
                let pose = try await reader.next(type: "result")
                XCTAssertEqual(pose["task"] as? String, "pose")
                XCTAssertEqual(((pose["pose"] as? [String: Any])?["landmarks"] as? [Any])?.count, 1)
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    /// A frame over the byte limit closes its session with 1009; other sessions go on.
    func testOversizedFrameClosesOnlyItsSession() async throws {
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        try await ServerFixture.server().withLive { _, port in
            let close = try await liveSession(port: port) { reader, outbound in
                _ = try await reader.next(type: "ready")
                try await outbound.write(.binary(ServerFixture.frame(Data(repeating: 0xAB, count: 300_000), timestamp: 1)))
                while try await reader.next() != nil {}
            }
            XCTAssertEqual(close?.closeCode, .messageTooLarge)
            try await liveSession(port: port) { reader, outbound in
                _ = try await reader.next(type: "ready")
                try await outbound.write(.binary(ServerFixture.frame(jpeg, timestamp: 1)))
                let answer = try await reader.next(type: "result")
XCTAssertEqual(answer["frame"] as? Int, 1)
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    /// Bad options in the URL refuse the session with a message and close code 1008.
    func testBadQueryOptionsRefuseTheSession() async throws {
        try await ServerFixture.server().withLive { _, port in
            let close = try await liveSession(port: port, query: "task=faces") { reader, _ in
                let answer = try await reader.next(type: "error")
                XCTAssertEqual((answer["error"] as? [String: Any])?["code"] as? String, "badOption")
                while try await reader.next() != nil {}
            }
            XCTAssertEqual(close?.closeCode, .policyViolation)
        }
    }

    /// One session more than --max-sessions is refused with tooManySessions and 1013; a place
    /// freed by a closed session is taken again.
    func testSessionLimit() async throws {
        let server = try VisionServer(configuration: ServerFixture.configuration(maxSessions: 1))
        try await server.withLive { client, port in
            try await liveSession(port: port) { reader, outbound in
                _ = try await reader.next(type: "ready")
                let refusal = try await liveSession(port: port) { second, _ in
                    let answer = try await second.next(type: "error")
                    XCTAssertEqual((answer["error"] as? [String: Any])?["code"] as? String, "tooManySessions")
                    while try await second.next() != nil {}
                }
                XCTAssertEqual(refusal?.closeCode, .unknown(1013))
                try await client.execute(uri: "/metrics", method: .get) { response in
                    XCTAssertTrue(String(buffer: response.body).contains("vision_tasks_open_sessions 1"))
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
            // The place is given back when the first session has closed.
            let accepted = Flag()
            for _ in 0..<50 where !accepted.value {
                try await liveSession(port: port) { reader, outbound in
                    let first = try await reader.next()
                    if first?["type"] as? String == "ready" {
                        accepted.value = true
                        try await outbound.close(.normalClosure, reason: nil)
                    } else {
                        while try await reader.next() != nil {}
                    }
                }
                if !accepted.value { try await Task.sleep(for: .milliseconds(100)) }
            }
            XCTAssertTrue(accepted.value)
        }
    }
}
