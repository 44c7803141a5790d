import Foundation
import MediaIO
import NIOCore
import NIOWebSocket
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// Teaching a live gesture session (`{"teach": ...}` messages) without a browser: frames of
/// shared stills recorded under new label names, a classifier trained on the server, the
/// session's answers switching to the taught labels at once; every bad request answered with
/// an error after which the session goes on.
final class TeachSessionTests: XCTestCase {
    /// The canned classifier calls it Victory; here it is taught as "hello".
    static let helloStill = "hand_victory_right_01.jpg"
    /// The canned classifier calls it None (a call sign): the "none" samples.
    static let noneStill = "hand_call_sign_none_01.jpg"

    /// A session that holds the frames' timestamps increasing.
    final class Frames: @unchecked Sendable {
        var timestamp = 1000
        func next(_ image: Data) -> ByteBuffer {
            timestamp += 66
            return ServerFixture.frame(image, timestamp: timestamp)
        }
    }

    func testTeachTwoLabelsTrainAndTheSessionAnswersWithThem() async throws {
        let hello = try ServerFixture.still(Self.helloStill)
        let none = try ServerFixture.still(Self.noneStill)
        let frames = Frames()
        try await ServerFixture.server().withLive { _, port in
            try await liveSession(port: port) { reader, client in
                _ = try await reader.next(type: "ready")
                /// The gesture of the first frame of `image` with a hand (of up to three: after another
                /// still the tracked hand is lost first).
                func gesture(of image: Data) async throws -> String? {
                    for _ in 0..<3 {
                        try await client.write(.binary(frames.next(image)))
                        let result = try await reader.next(type: "result")
                        if Self.handCount(result) > 0 { return Self.gestureName(result) }
                    }
                    return nil
                }
                func send(_ request: String) async throws -> [String: Any] {
                    try await client.write(.text(request))
                    guard let answer = try await reader.next() else { throw ServerFixture.TestFailure("closed after \(request)") }
                    return answer
                }
                func expectError(_ request: String, _ code: String, _ words: String) async throws {
                    let answer = try await send(request)
                    XCTAssertEqual(answer["type"] as? String, "error", "\(request): \(answer)")
                    let error = answer["error"] as? [String: Any]
                    XCTAssertEqual(error?["code"] as? String, code, "\(request): \(answer)")
                    XCTAssertTrue((error?["message"] as? String ?? "").contains(words), "\(request): \(answer)")
                }
                /// Records `count` samples of `image` as `label`: each frame whose result has a
                /// hand is followed by a sample answer. The first frame after another still may
                /// find no hand (the tracked hand is lost, the detector runs on the next frame).
                func record(_ label: String, _ image: Data, count: Int) async throws -> [String: Int] {
                    let started = try await send("{\"teach\": {\"record\": \"\(label)\"}}")
                    XCTAssertEqual(started["event"] as? String, "recording", "\(started)")
                    var samples: [String: Int] = [:]
                    var recorded = 0
                    for _ in 0..<(count + 5) where recorded < count {
                        try await client.write(.binary(frames.next(image)))
                        let result = try await reader.next(type: "result")
                        guard Self.handCount(result) > 0 else { continue }
                        let sample = try await reader.next() ?? [:]
                        XCTAssertEqual(sample["type"] as? String, "teach", "\(sample)")
                        XCTAssertEqual(sample["event"] as? String, "sample", "\(sample)")
                        XCTAssertEqual(sample["label"] as? String, label)
                        samples = sample["samples"] as? [String: Int] ?? [:]
                        recorded += 1
                    }
                    XCTAssertEqual(recorded, count, "frames of \(label) with a hand")
                    let stopped = try await send("{\"teach\": {\"stop\": true}}")
                    XCTAssertEqual(stopped["event"] as? String, "stopped", "\(stopped)")
                    return samples
                }

                // The canned classifier's names before teaching.
                let cannedHello = try await gesture(of: hello)
                XCTAssertEqual(cannedHello, "Victory")

                // Training before there is anything to train on, or without a gesture beside none.
                try await expectError("{\"teach\": {\"train\": {}}}", "teachFailed", "none")
                var samples = try await record("none", none, count: 6)
                XCTAssertEqual(samples, ["none": 6])
                try await expectError("{\"teach\": {\"train\": {}}}", "teachFailed", "at least one gesture")
                samples = try await record("hello", hello, count: 3)
                XCTAssertEqual(samples, ["none": 6, "hello": 3])
                try await expectError("{\"teach\": {\"train\": {}}}", "teachFailed", "hello has 3 samples")
                // Without none: cleared, then recorded again.
                let cleared = try await send("{\"teach\": {\"clear\": \"none\"}}")
                XCTAssertEqual(cleared["samples"] as? [String: Int], ["hello": 3], "\(cleared)")
                try await expectError("{\"teach\": {\"train\": {}}}", "teachFailed", "none")
                samples = try await record("none", none, count: 10)
                samples = try await record("hello", hello, count: 7)
                XCTAssertEqual(samples, ["none": 10, "hello": 10])
                // The session went on: still the canned names.
                let stillCanned = try await gesture(of: hello)
                XCTAssertEqual(stillCanned, "Victory")

                try await client.write(.text("{\"teach\": {\"train\": {\"name\": \"mine\", \"epochs\": 10}}}"))
                let trained = try await reader.next(type: "teach")
                XCTAssertEqual(trained["event"] as? String, "trained", "\(trained)")
                XCTAssertEqual(trained["name"] as? String, "mine")
                XCTAssertEqual(trained["using"] as? String, "mine")
                XCTAssertEqual(trained["models"] as? [String], ["mine"])
                XCTAssertEqual(trained["labels"] as? [String], ["none", "hello"])
                XCTAssertEqual(trained["trainingSamples"] as? Int, 16)
                XCTAssertEqual(trained["testSamples"] as? Int, 4)
                XCTAssertEqual(trained["accuracy"] as? Double, 1, "the held-out frames: \(trained)")
                XCTAssertEqual(trained["confusionMatrix"] as? [[Int]], [[2, 0], [0, 2]])
                let ready = try await reader.next(type: "ready")
                XCTAssertEqual(ready["task"] as? String, "gesture")
                print("teach: trained on 16 samples in \(trained["trainingMilliseconds"] ?? "?") ms")

                // The new recognizer answers from the next frame on, with the taught names.
                let taughtHello = try await gesture(of: hello)
                XCTAssertEqual(taughtHello, "hello")
                let taughtNone = try await gesture(of: none)
                XCTAssertEqual(taughtNone, "none")
                let notTaught = try await gesture(of: try ServerFixture.still("hand_thumb_up_left_01.jpg"))
                XCTAssertNotEqual(notTaught, "hello")

                // Back to the server's bundle, and to the kept classifier again.
                let canned = try await send("{\"teach\": {\"use\": null}}")
                XCTAssertEqual(canned["event"] as? String, "using", "\(canned)")
                XCTAssertTrue(canned["using"] is NSNull, "\(canned)")
                _ = try await reader.next(type: "ready")
                let cannedAgain = try await gesture(of: hello)
                XCTAssertEqual(cannedAgain, "Victory")
                let mine = try await send("{\"teach\": {\"use\": \"mine\"}}")
                XCTAssertEqual(mine["using"] as? String, "mine", "\(mine)")
                _ = try await reader.next(type: "ready")
                let mineAgain = try await gesture(of: hello)
                XCTAssertEqual(mineAgain, "hello")
                try await expectError("{\"teach\": {\"use\": \"yours\"}}", "teachFailed", "the kept ones are mine")

                // The kept classifier's bundle: a `bundle` answer, then the bundle as one binary
                // message, which the library's recognizer opens and runs with the taught names.
                let announced = try await send("{\"teach\": {\"download\": \"mine\"}}")
                XCTAssertEqual(announced["event"] as? String, "bundle", "\(announced)")
                XCTAssertEqual(announced["label"] as? String, "mine", "\(announced)")
                guard case .binary(let bundle)? = try await client.next() else {
                    throw ServerFixture.TestFailure("no binary message after \(announced)")
                }
                XCTAssertEqual(bundle.count, announced["bytes"] as? Int)
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("teach-\(UUID().uuidString).task")
                defer { try? FileManager.default.removeItem(at: file) }
                try Data(bundle).write(to: file)
                let options = GestureRecognizerOptions()
                options.baseOptions.modelAssetPath = file.path
                let downloaded = try GestureRecognizer(options: options).recognize(image: try MPImage(data: hello))
                XCTAssertEqual(downloaded.gestures.first?.first?.categoryName, "hello", "\(downloaded.gestures)")
                try await expectError("{\"teach\": {\"download\": \"yours\"}}", "teachFailed", "the kept ones are mine")

                // An options message keeps the taught classifier.
                try await client.write(.text("{\"numHands\": 2}"))
                let twoHands = try await reader.next(type: "ready")
                XCTAssertEqual(twoHands["numHands"] as? Int, 2)
                let afterOptions = try await gesture(of: hello)
                XCTAssertEqual(afterOptions, "hello")
                try await client.close(.normalClosure, reason: nil)
            }
        }
    }

    func testBadTeachMessagesGetErrorsAndTheSessionGoesOn() async throws {
        let hello = try ServerFixture.still(Self.helloStill)
        try await ServerFixture.server().withLive { _, port in
            try await liveSession(port: port) { reader, client in
                _ = try await reader.next(type: "ready")
                let bad: [(String, String)] = [
                    ("{\"teach\": {\"record\": 5}}", "badMessage"),
                    ("{\"teach\": {\"record\": \"a\", \"stop\": true}}", "badMessage"),
                    ("{\"teach\": {}}", "badMessage"),
                    ("{\"teach\": {\"dance\": true}}", "badMessage"),
                    ("{\"teach\": {\"stop\": false}}", "badMessage"),
                    ("{\"teach\": 1}", "badMessage"),
                    ("{\"teach\": {\"stop\": true}, \"numHands\": 2}", "badMessage"),
                    ("{\"teach\": {\"train\": {\"rate\": 1}}}", "badMessage"),
                    ("{\"teach\": {\"record\": \"\"}}", "badOption"),
                    ("{\"teach\": {\"record\": \"two\\nlines\"}}", "badOption"),
                    ("{\"teach\": {\"record\": \"\(String(repeating: "x", count: 65))\"}}", "badOption"),
                    ("{\"teach\": {\"train\": {\"epochs\": 0}}}", "badOption"),
                    ("{\"teach\": {\"train\": {\"epochs\": 1e300}}}", "badOption"),
                    ("{\"teach\": {\"train\": {\"batchSize\": 2.5}}}", "badOption"),
                    ("{\"teach\": {\"clear\": \"never recorded\"}}", "teachFailed"),
                    ("{\"teach\": {\"use\": \"nothing trained\"}}", "teachFailed"),
                    ("{\"teach\": {\"download\": \"nothing trained\"}}", "teachFailed"),
                    ("{\"teach\": {\"download\": true}}", "badMessage"),
                    ("{\"teach\": {\"train\": {}}}", "teachFailed"),
                    ("{\"teach\": {\"upload\": {\"name\": \"x\"}}}", "badMessage"),
                    ("{\"teach\": {\"upload\": {\"name\": \"x\", \"bytes\": 5, \"sha\": 1}}}", "badMessage"),
                    ("{\"teach\": {\"upload\": {\"name\": \"x\", \"bytes\": 0}}}", "badOption"),
                    ("{\"teach\": {\"upload\": {\"name\": \"x\", \"bytes\": 1.5}}}", "badOption"),
                    ("{\"teach\": {\"upload\": {\"name\": \"\", \"bytes\": 5}}}", "badOption"),
                ]
                for (text, code) in bad {
                    try await client.write(.text(text))
                    let answer = try await reader.next(type: "error")
                    XCTAssertEqual((answer["error"] as? [String: Any])?["code"] as? String, code, "\(text): \(answer)")
                }
                // Recording is for gesture sessions.
                try await client.write(.text("{\"task\": \"pose\"}"))
                _ = try await reader.next(type: "ready")
                try await client.write(.text("{\"teach\": {\"record\": \"wave\"}}"))
                let pose = try await reader.next(type: "error")
                XCTAssertEqual((pose["error"] as? [String: Any])?["code"] as? String, "teachFailed", "\(pose)")
                try await client.write(.text("{\"task\": \"gesture\"}"))
                _ = try await reader.next(type: "ready")
                try await client.write(.binary(ServerFixture.frame(hello, timestamp: 100)))
                let result = try await reader.next(type: "result")
                XCTAssertEqual(Self.gestureName(result), "Victory")
                try await client.close(.normalClosure, reason: nil)
            }
        }
    }

    /// `ServerLimits`: labels per session, samples per label (recording stops when full), and
    /// kept classifiers (the least recently used one is dropped).
    func testTeachLimits() async throws {
        var limits = ServerFixture.smallLimits
        limits.maxTeachLabels = 2
        limits.maxTeachSamplesPerLabel = 6
        limits.maxTaughtModels = 1
        let server = try VisionServer(configuration: ServerFixture.configuration(limits: limits))
        let hello = try ServerFixture.still(Self.helloStill)
        let none = try ServerFixture.still(Self.noneStill)
        let frames = Frames()
        try await server.withLive { _, port in
            try await liveSession(port: port) { reader, client in
                _ = try await reader.next(type: "ready")
                for (label, image) in [("none", none), ("hello", hello)] {
                    try await client.write(.text("{\"teach\": {\"record\": \"\(label)\"}}"))
                    _ = try await reader.next(type: "teach")
                    var last: [String: Any] = [:]
                    // Frames beyond the limit add nothing.
                    for _ in 0..<10 {
                        try await client.write(.binary(frames.next(image)))
                        let result = try await reader.next(type: "result")
                        if (last["samples"] as? [String: Int])?[label] == 6 || Self.handCount(result) == 0 { continue }
                        last = try await reader.next(type: "teach")
                        if (last["samples"] as? [String: Int])?[label] == 6 {
                            let stopped = try await reader.next(type: "teach")
                            XCTAssertEqual(stopped["event"] as? String, "stopped", "\(stopped)")
                            XCTAssertTrue((stopped["reason"] as? String ?? "").contains("maximum of 6"), "\(stopped)")
                        }
                    }
                    XCTAssertEqual((last["samples"] as? [String: Int])?[label], 6, "\(last)")
                }
                try await client.write(.text("{\"teach\": {\"record\": \"hello\"}}"))
                let full = try await reader.next(type: "error")
                XCTAssertTrue(((full["error"] as? [String: Any])?["message"] as? String ?? "").contains("maximum of 6"), "\(full)")
                try await client.write(.text("{\"teach\": {\"record\": \"third\"}}"))
                let third = try await reader.next(type: "error")
                XCTAssertTrue(((third["error"] as? [String: Any])?["message"] as? String ?? "").contains("maximum of 2 labels"), "\(third)")

                try await client.write(.text("{\"teach\": {\"train\": {\"name\": \"first\"}}}"))
                let first = try await reader.next(type: "teach")
                XCTAssertEqual(first["models"] as? [String], ["first"], "\(first)")
                try await client.write(.text("{\"teach\": {\"train\": {\"name\": \"second\"}}}"))
                let second = try await reader.next(type: "teach")
                XCTAssertEqual(second["models"] as? [String], ["second"], "\(second)")
                XCTAssertEqual(second["dropped"] as? [String], ["first"], "\(second)")
                try await client.close(.normalClosure, reason: nil)
            }
        }
    }

    /// The number of hands in a gesture result answer.
    static func handCount(_ answer: [String: Any]) -> Int {
        ((answer["gesture"] as? [String: Any])?["landmarks"] as? [Any])?.count ?? 0
    }

    /// The first hand's gesture name in a result answer, if any.
    static func gestureName(_ answer: [String: Any]) -> String? {
        let gestures = (answer["gesture"] as? [String: Any])?["gestures"] as? [[[String: Any]]]
        return gestures?.first?.first?["categoryName"] as? String
    }
}
