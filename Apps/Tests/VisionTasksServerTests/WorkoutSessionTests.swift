import Foundation
import MediaIO
import NIOCore
import NIOWebSocket
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// Workout messages on live pose sessions: ML Kit's classification and repetition counting on
/// the session's poses, equal to the library's `PoseClassificationTracker` on the same frames,
/// and every bad workout message answered with an error while the session goes on.
final class WorkoutSessionTests: XCTestCase {
    /// `video_pose_squats.mp4` (two complete squats, then a third the clip ends in) as live
    /// frames. The samples are the library's poses of the first two squats' standing frames
    /// (`squats_up`: 0-2, 17-27, 41-51) and bottoms (`squats_down`: 8-12, 32-36), labelled as
    /// `SquatCountingTests` labels them from MediaPipe's reference landmarks; this test checks
    /// the session against the library, not the classifier's accuracy (`SquatCountingTests`
    /// does that with samples from other squats).
    func testWorkoutAnswersEqualTheLibraryAndCountTwoSquats() async throws {
        let server = try ServerFixture.server()
        let frames = try LiveSessionTests.videoFrames("video_pose_squats.mp4", count: 65)
        XCTAssertEqual(frames.count, 65)
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = server.configuration.models.poseLandmarker
        options.runningMode = .video
        let landmarker = try PoseLandmarker(options: options)
        var poses: [(result: PoseLandmarkerResult, width: Int, height: Int)] = []
        for frame in frames {
            let image = try MPImage(data: frame.bytes)
            poses.append((try landmarker.detect(videoFrame: image, timestampInMilliseconds: frame.timestamp), image.width, image.height))
        }
        let up = Array(0...2) + Array(17...27) + Array(41...51), down = Array(8...12) + Array(32...36)
        var samples: [PoseSample] = []
        for (className, indices) in [("squats_up", up), ("squats_down", down)] {
            for i in indices {
                guard let pose = poses[i].result.landmarks.first else { continue }
                samples.append(try PoseSample(
                    name: "frame\(i)", className: className, landmarks: pose, imageWidth: poses[i].width, imageHeight: poses[i].height))
            }
        }
        let csv = PoseSample.csv(samples)
        var trackerOptions = PoseClassificationTrackerOptions()
        trackerOptions.countedClasses = ["squats_down"]
        let tracker = try PoseClassificationTracker(classifier: PoseClassifier(samples: PoseSample.samples(csv: Data(csv.utf8))), options: trackerOptions)
        let expected = try poses.map { try LiveSessionTests.canonical(tracker.process($0.result, imageWidth: $0.width, imageHeight: $0.height)) }

        let message = try String(decoding: JSONSerialization.data(withJSONObject: ["workout": ["samples": csv, "count": ["squats_down"]]]), as: UTF8.self)
        let box = ResultBox<[String: Any]>()
        try await server.withLive { _, port in
            try await liveSession(port: port, query: "task=pose") { reader, outbound in
                _ = try await reader.next(type: "ready")
                try await outbound.write(.text(message))
                let started = try await reader.next(type: "workout")
                XCTAssertEqual(started["active"] as? Bool, true)
                XCTAssertEqual(started["classes"] as? [String], ["squats_down", "squats_up"])
                XCTAssertEqual(started["countedClasses"] as? [String], ["squats_down"])
                XCTAssertEqual(started["sampleCounts"] as? [String: Int], ["squats_up": up.count, "squats_down": down.count])
                var last: [String: Any] = [:]
                for (i, frame) in frames.enumerated() {
                    try await outbound.write(.binary(ServerFixture.frame(frame.bytes, timestamp: frame.timestamp)))
                    let answer = try await reader.next(type: "result")
                    XCTAssertEqual(try LiveSessionTests.canonical(answer["classifications"]), expected[i], "frame \(i)")
                    last = answer
                }
                box.value = last
                // Reset: counts from zero, the samples kept.
                try await outbound.write(.text("{\"workout\": {\"reset\": true}}"))
                let reset = try await reader.next(type: "workout")
                XCTAssertEqual(reset["active"] as? Bool, true)
                let next = frames[20]
                try await outbound.write(.binary(ServerFixture.frame(next.bytes, timestamp: 100_000)))
                let afterReset = try await reader.next(type: "result")
                let counts = ((afterReset["classifications"] as? [[String: Any]])?.first?["repetitionCounts"]) as? [String: Int]
                XCTAssertEqual(counts, ["squats_down": 0])
                // Options keep the workout; stop ends it.
                try await outbound.write(.text("{\"numPoses\": 2}"))
                _ = try await reader.next(type: "ready")
                try await outbound.write(.binary(ServerFixture.frame(next.bytes, timestamp: 100_100)))
                let kept = try await reader.next(type: "result")
                XCTAssertNotNil(kept["classifications"], "the workout outlives an options message")
                try await outbound.write(.text("{\"workout\": {\"stop\": true}}"))
                let stopped = try await reader.next(type: "workout")
                XCTAssertEqual(stopped["active"] as? Bool, false)
                XCTAssertNil(stopped["classes"])
                try await outbound.write(.binary(ServerFixture.frame(next.bytes, timestamp: 100_200)))
                let unclassified = try await reader.next(type: "result")
                XCTAssertNil(unclassified["classifications"])
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
        let final = (box.value?["classifications"] as? [[String: Any]])?.first
        XCTAssertEqual(final?["repetitionCounts"] as? [String: Int], ["squats_down": 2], "two complete squats: \(final ?? [:])")
    }

    /// Each bad workout message gets an error naming what is wrong, and the session goes on.
    func testBadWorkoutMessagesGetErrors() async throws {
        let pose = try ServerFixture.still("pose_fullbody_yoga_warrior.jpg")
        let image = try MPImage(data: pose)
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = try ServerFixture.server().configuration.models.poseLandmarker
        let landmarks = try XCTUnwrap(try PoseLandmarker(options: options).detect(image: image).landmarks.first)
        func samples(_ classes: [String]) throws -> String {
            try PoseSample.csv(classes.enumerated().map { i, name in
                try PoseSample(name: "s\(i)", className: name, landmarks: landmarks, imageWidth: image.width, imageHeight: image.height)
            })
        }
        @Sendable func workout(_ body: [String: Any]) throws -> String {
            try String(decoding: JSONSerialization.data(withJSONObject: ["workout": body]), as: UTF8.self)
        }
        let twelve = try samples(Array(repeating: "a", count: 6) + Array(repeating: "b", count: 6))
        let bad: [(String, String, String)] = [
            ("{\"workout\": 3}", "badMessage", "workout"),
            ("{\"workout\": {}}", "badMessage", "workout must be one of"),
            ("{\"workout\": {\"samples\": \"\", \"speed\": 2}}", "badMessage", "unknown key speed"),
            ("{\"workout\": {\"reset\": true}, \"numPoses\": 2}", "badMessage", "unknown key numPoses"),
            ("{\"workout\": {\"reset\": true}}", "badMessage", "no workout to reset"),
            (try workout(["samples": "a,b,1,2,3\n"]), "badSamples", "line 1"),
            (try workout(["samples": twelve.replacingOccurrences(of: "s3,a,", with: "s3,a,nan,")]), "badSamples", "line 4"),
            (try workout(["samples": try samples(Array(repeating: "a", count: 12))]), "badSamples", "at least two classes"),
            (try workout(["samples": try samples(["a", "b", "a", "b"])]), "badSamples", "4 pose samples, fewer than"),
            (try workout(["samples": twelve, "count": ["c"]]), "badSamples", "no pose sample has class"),
            (try workout(["samples": twelve, "count": []]), "badMessage", "count"),
        ]
        try await ServerFixture.server().withLive { _, port in
            try await liveSession(port: port, query: "task=gesture") { reader, outbound in
                _ = try await reader.next(type: "ready")
                try await outbound.write(.text(try workout(["samples": twelve])))
                let refused = try await reader.next(type: "error")
                XCTAssertTrue(((refused["error"] as? [String: Any])?["message"] as? String)?.contains("pose task") ?? false, "\(refused)")
                try await outbound.write(.text("{\"task\": \"pose\"}"))
                _ = try await reader.next(type: "ready")
                for (text, code, words) in bad {
                    try await outbound.write(.text(text))
                    let answer = try await reader.next(type: "error")
                    let error = answer["error"] as? [String: Any]
                    XCTAssertEqual(error?["code"] as? String, code, "\(text.prefix(80)): \(answer)")
                    XCTAssertTrue((error?["message"] as? String)?.contains(words) ?? false, "\(text.prefix(80)): \(answer)")
                }
                // The session goes on: a good workout starts and a frame is classified.
                try await outbound.write(.text(try workout(["samples": twelve])))
                let started = try await reader.next(type: "workout")
                XCTAssertEqual(started["countedClasses"] as? [String], [])
                try await outbound.write(.binary(ServerFixture.frame(pose, timestamp: 1)))
                let result = try await reader.next(type: "result")
                XCTAssertEqual((result["classifications"] as? [Any])?.count, 1, "\(result)")
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }
}
