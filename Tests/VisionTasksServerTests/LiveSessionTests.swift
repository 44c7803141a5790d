import Foundation
import HummingbirdTesting
import MediaIO
import NIOCore
import NIOWebSocket
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
