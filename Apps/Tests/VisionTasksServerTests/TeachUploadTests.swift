import Foundation
import NIOCore
import NIOWebSocket
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// Uploading a gesture recognizer bundle to a live session (`{"teach": {"upload": ...}}`, then
/// the bundle in binary messages no larger than a frame): a bundle with a custom classifier
/// made on the server's embedder runs; every other upload is answered with an error, nothing is
/// kept, and the session goes on answering frames.
final class TeachUploadTests: XCTestCase {
    /// The server's gesture recognizer bundle, its nested gesture part, and the installed
    /// custom classifier (MediaPipe's, not trained here).
    struct Parts {
        let bundle: [UInt8]
        let handLandmarker: [UInt8]
        let embedder: [UInt8]
        let canned: [UInt8]
        let custom: [UInt8]

        init() throws {
            let models = try SharedTestData.installedModels()
            bundle = [UInt8](try Data(contentsOf: models.appendingPathComponent("gesture_recognizer.task")))
            handLandmarker = try BundleArchives.member("hand_landmarker.task", ofBundle: bundle)
            embedder = try BundleArchives.member("gesture_embedder.tflite", ofBundle: bundle)
            canned = try BundleArchives.member("canned_gesture_classifier.tflite", ofBundle: bundle)
            custom = [UInt8](try Data(contentsOf: models.appendingPathComponent("custom_gesture_classifier.tflite")))
        }

        /// A gesture recognizer bundle of the server's hand models and these gesture models.
        func bundle(embedder: [UInt8], custom: [UInt8]?) throws -> [UInt8] {
            var gestures: [(name: String, bytes: [UInt8])] = [
                ("gesture_embedder.tflite", embedder),
                ("canned_gesture_classifier.tflite", canned),
            ]
            if let custom { gestures.append(("custom_gesture_classifier.tflite", custom)) }
            return try BundleArchives.archive([
                ("hand_landmarker.task", handLandmarker),
                ("hand_gesture_recognizer.task", try BundleArchives.archive(gestures)),
            ])
        }
    }

    /// Sends an upload request for `bytes` (announcing `announced`, by default its size) and,
    /// once the server answers `receiving`, the bytes in parts of at most `part`; returns the
    /// server's next answer (of type `teach` or `error`).
    static func upload(
        _ bytes: [UInt8], named name: String, announced: Int? = nil, part: Int, reader: inout LiveReader, client: LiveClient
    ) async throws -> [String: Any] {
        try await client.write(.text("{\"teach\": {\"upload\": {\"name\": \"\(name)\", \"bytes\": \(announced ?? bytes.count)}}}"))
        guard let receiving = try await reader.next() else { throw ServerFixture.TestFailure("closed after the upload request") }
        guard receiving["event"] as? String == "receiving" else { return receiving }
        XCTAssertEqual(receiving["label"] as? String, name, "\(receiving)")
        XCTAssertEqual(receiving["bytes"] as? Int, announced ?? bytes.count, "\(receiving)")
        for start in stride(from: 0, to: bytes.count, by: part) {
            try await client.write(.binary(ByteBuffer(bytes: bytes[start..<min(bytes.count, start + part)])))
        }
        guard let answer = try await reader.next() else { throw ServerFixture.TestFailure("closed after the upload") }
        return answer
    }

    static func errorCode(_ answer: [String: Any]) -> String? { (answer["error"] as? [String: Any])?["code"] as? String }
    static func errorMessage(_ answer: [String: Any]) -> String { (answer["error"] as? [String: Any])?["message"] as? String ?? "" }

    func testUploadedBundlesRunTheirClassifierOrAreRefusedAndTheSessionGoesOn() async throws {
        let parts = try Parts()
        let hello = try ServerFixture.still(TeachSessionTests.helloStill)
        let part = ServerFixture.smallLimits.maxImageBytes
        try await ServerFixture.server().withLive { _, port in
            try await liveSession(port: port) { reader, client in
                _ = try await reader.next(type: "ready")
                let refused: [(what: String, bytes: [UInt8], announced: Int?, words: String)] = [
                    ("not a zip archive", [UInt8](repeating: 7, count: 20), nil, "not a task bundle"),
                    ("MediaPipe's canned bundle, without a custom classifier", parts.bundle, nil, "with a custom classifier"),
                    ("another embedder", try parts.bundle(embedder: parts.embedder + [0, 0, 0, 0], custom: parts.custom), nil, "another gesture_embedder.tflite"),
                    ("a custom classifier that is no model", try parts.bundle(embedder: parts.embedder, custom: [UInt8](repeating: 1, count: 100)), nil, "cannot run"),
                    ("more bytes than announced", [UInt8](repeating: 7, count: 12), 10, "not the 10 its upload request announced"),
                    ("more than maxUploadedBundleBytes", [], 13 << 20, "more than the \(12 << 20)"),
                ]
                for (what, bytes, announced, words) in refused {
                    let answer = try await Self.upload(bytes, named: "theirs", announced: announced, part: part, reader: &reader, client: client)
                    XCTAssertEqual(Self.errorCode(answer), "teachFailed", "\(what): \(answer)")
                    XCTAssertTrue(Self.errorMessage(answer).contains(words), "\(what): \(answer)")
                }
                // An upload left half-sent: the next text message ends it, and is then read as usual.
                try await client.write(.text("{\"teach\": {\"upload\": {\"name\": \"half\", \"bytes\": 100}}}"))
                let receiving = try await reader.next(type: "teach")
                XCTAssertEqual(receiving["event"] as? String, "receiving", "\(receiving)")
                try await client.write(.binary(ByteBuffer(bytes: [UInt8](repeating: 7, count: 40))))
                try await client.write(.text("{\"teach\": {\"stop\": true}}"))
                let abandoned = try await reader.next(type: "error")
                XCTAssertEqual(Self.errorCode(abandoned), "teachFailed", "\(abandoned)")
                XCTAssertTrue(Self.errorMessage(abandoned).contains("after 40 of its 100 bytes"), "\(abandoned)")
                let stopped = try await reader.next(type: "teach")
                XCTAssertEqual(stopped["event"] as? String, "stopped", "\(stopped)")
                // Nothing was kept, and the next binary message is a frame again.
                try await client.write(.binary(ServerFixture.frame(hello, timestamp: 100)))
                let result = try await reader.next(type: "result")
                XCTAssertEqual(TeachSessionTests.gestureName(result), "Victory", "\(result)")

                // The server's models with MediaPipe's custom classifier: kept and run.
                let good = try parts.bundle(embedder: parts.embedder, custom: parts.custom)
                let uploaded = try await Self.upload(good, named: "theirs", part: part, reader: &reader, client: client)
                XCTAssertEqual(uploaded["event"] as? String, "uploaded", "\(uploaded)")
                XCTAssertEqual(uploaded["name"] as? String, "theirs", "\(uploaded)")
                XCTAssertEqual(uploaded["using"] as? String, "theirs", "\(uploaded)")
                XCTAssertEqual(uploaded["models"] as? [String], ["theirs"], "\(uploaded)")
                XCTAssertEqual(uploaded["bytes"] as? Int, parts.custom.count, "\(uploaded)")
                let labels = uploaded["labels"] as? [String] ?? []
                XCTAssertFalse(labels.isEmpty, "\(uploaded)")
                _ = try await reader.next(type: "ready")
                print("teach upload: MediaPipe's custom classifier runs with the labels \(labels)")
                // Switching back and forth keeps it.
                try await client.write(.text("{\"teach\": {\"use\": null}}"))
                let canned = try await reader.next(type: "teach")
                XCTAssertTrue(canned["using"] is NSNull, "\(canned)")
                try await client.write(.text("{\"teach\": {\"use\": \"theirs\"}}"))
                let again = try await reader.next(type: "teach")
                XCTAssertEqual(again["using"] as? String, "theirs", "\(again)")
                try await client.close(.normalClosure, reason: nil)
            }
        }
    }

    /// A bundle the session saved (`download`) goes back up under another name and answers with
    /// the taught gesture, as a page that saved it and loads it later would.
    func testASavedBundleUploadedAgainAnswersWithItsTaughtGestures() async throws {
        let hello = try ServerFixture.still(TeachSessionTests.helloStill)
        let none = try ServerFixture.still(TeachSessionTests.noneStill)
        let frames = TeachSessionTests.Frames()
        let part = ServerFixture.smallLimits.maxImageBytes
        try await ServerFixture.server().withLive { _, port in
            let saved = OnceResult<[UInt8]>()
            try await liveSession(port: port) { reader, client in
                _ = try await reader.next(type: "ready")
                for (label, image) in [("none", none), ("hello", hello)] {
                    try await client.write(.text("{\"teach\": {\"record\": \"\(label)\"}}"))
                    _ = try await reader.next(type: "teach")
                    var samples = 0
                    while samples < 8 {
                        try await client.write(.binary(frames.next(image)))
                        if TeachSessionTests.handCount(try await reader.next(type: "result")) > 0 {
                            samples = ((try await reader.next(type: "teach"))["samples"] as? [String: Int])?[label] ?? 0
                        }
                    }
                }
                try await client.write(.text("{\"teach\": {\"train\": {\"name\": \"mine\", \"epochs\": 30}}}"))
                _ = try await reader.next(type: "teach")
                try await client.write(.text("{\"teach\": {\"download\": \"mine\"}}"))
                _ = try await reader.next(type: "teach")
                guard case .binary(let bundle)? = try await client.next() else { throw ServerFixture.TestFailure("no bundle") }
                saved.set(.success([UInt8](bundle)))
                try await client.close(.normalClosure, reason: nil)
            }
            let bundle = try await saved.value().get()
            // A new session, as after a page reload: the saved bundle under another name.
            try await liveSession(port: port) { reader, client in
                _ = try await reader.next(type: "ready")
                let uploaded = try await Self.upload(bundle, named: "saved", part: part, reader: &reader, client: client)
                XCTAssertEqual(uploaded["event"] as? String, "uploaded", "\(uploaded)")
                XCTAssertEqual(Set(uploaded["labels"] as? [String] ?? []), ["none", "hello"], "\(uploaded)")
                XCTAssertEqual(uploaded["using"] as? String, "saved", "\(uploaded)")
                _ = try await reader.next(type: "ready")
                var gesture: String?
                for _ in 0..<3 where gesture == nil {
                    try await client.write(.binary(frames.next(hello)))
                    gesture = TeachSessionTests.gestureName(try await reader.next(type: "result"))
                }
                XCTAssertEqual(gesture, "hello")
                try await client.close(.normalClosure, reason: nil)
            }
        }
    }
}
