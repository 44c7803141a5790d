import Foundation
import HTTPTypes
import MediaIO
import NIOCore
import TaskRunner
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// The HTTP endpoints: the page, health, metrics, and the task API with good and bad images.
final class ServerHTTPTests: XCTestCase {
    func testPageHealthAndMetrics() async throws {
        try await ServerFixture.server().withLive { client, _ in
            try await client.execute(uri: "/", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.headers[.contentType], "text/html; charset=utf-8")
                XCTAssertTrue(String(buffer: response.body).contains("<script src=\"/app.js\">"))
            }
            for path in ["/app.js", "/style.css"] {
                try await client.execute(uri: path, method: .get) { response in
                    XCTAssertEqual(response.status, .ok, path)
                    XCTAssertGreaterThan(response.body.readableBytes, 1000, path)
                }
            }
            try await client.execute(uri: "/healthz", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(try ServerFixture.json(response.body)["status"] as? String, "ok")
            }
            try await client.execute(uri: "/v1/live", method: .get) { response in
                XCTAssertEqual(response.status, .upgradeRequired)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                let text = String(buffer: response.body)
                for name in [
                    "vision_tasks_open_sessions", "vision_tasks_frames_processed_total", "vision_tasks_frames_dropped_total",
                    "vision_tasks_processing_seconds_bucket", "vision_tasks_errors_total",
                ] {
                    XCTAssertTrue(text.contains(name), "\(name) missing from /metrics:\n\(text)")
                }
            }
        }
    }

    /// POST answers equal the library's image-mode results on the same bytes, in the CLI's form.
    func testTaskRequestsEqualTheLibrary() async throws {
        let server = try ServerFixture.server()
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        let png = try Data(contentsOf: SharedTestData.file("reference/hand_victory_right_01.pixels.png"))
        let pose = try ServerFixture.still("pose_fullbody_yoga_warrior.jpg")
        let models = server.configuration.models

        let recognizer = try GestureRecognizer(modelPath: models.gestureRecognizer)
        let expectedGesture = try recognizer.recognize(image: MPImage(data: jpeg))
        let landmarker = try HandLandmarker(modelPath: models.handLandmarker)
        let expectedHands = try landmarker.detect(image: MPImage(data: png))
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = models.poseLandmarker
        options.numPoses = 2
        let expectedPose = try PoseLandmarker(options: options).detect(image: MPImage(data: pose))
        XCTAssertEqual(expectedGesture.gestures.first?.first?.categoryName, "Thumb_Up")

        try await server.withLive { client, _ in
            try await client.execute(uri: "/v1/gesture", method: .post, body: ByteBuffer(bytes: jpeg)) { response in
                XCTAssertEqual(response.status, .ok)
                let body = try ServerFixture.json(response.body)
                XCTAssertEqual(body["width"] as? Int, expectedGesture.landmarks.isEmpty ? nil : try MPImage(data: jpeg).width)
                let decoded = try JSONDecoder().decode(
                    GestureRecognizerResult.self, from: JSONSerialization.data(withJSONObject: body["gesture"] as Any))
                XCTAssertEqual(decoded.gestures, expectedGesture.gestures)
                XCTAssertEqual(decoded.handedness, expectedGesture.handedness)
                XCTAssertEqual(decoded.landmarks, expectedGesture.landmarks)
                XCTAssertEqual(decoded.worldLandmarks, expectedGesture.worldLandmarks)
            }
            try await client.execute(uri: "/v1/hands", method: .post, body: ByteBuffer(bytes: png)) { response in
                XCTAssertEqual(response.status, .ok)
                let body = try ServerFixture.json(response.body)
                let decoded = try JSONDecoder().decode(
                    HandLandmarkerResult.self, from: JSONSerialization.data(withJSONObject: body["hands"] as Any))
                XCTAssertEqual(decoded.landmarks, expectedHands.landmarks)
                XCTAssertEqual(decoded.handedness, expectedHands.handedness)
            }
            try await client.execute(uri: "/v1/pose?numPoses=2", method: .post, body: ByteBuffer(bytes: pose)) { response in
                XCTAssertEqual(response.status, .ok)
                let body = try ServerFixture.json(response.body)
                let expected = try JSONSerialization.jsonObject(with: FrameRecord.makeEncoder().encode(PoseRecord(expectedPose)))
                XCTAssertEqual(body["pose"] as? NSDictionary, expected as? NSDictionary)
                XCTAssertEqual((expected as? [String: Any])?["landmarks"].map { ($0 as? [Any])?.count }, 1)
            }
        }
    }

    /// Every kind of bad request gets a JSON error with the right status, and the server goes on.
    func testBadRequestsAreRefusedClearly() async throws {
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        var huge = try ImageEncoder.png(PixelBuffer(width: 1, height: 1, format: .gray8, bytes: [0]))
        // Rewrite the PNG's IHDR to declare 5000 × 5000 pixels: refused from the header.
        huge.replaceSubrange(16..<24, with: [0, 0, 0x13, 0x88, 0, 0, 0x13, 0x88])
        let cases: [(String, Data, HTTPResponse.Status, String)] = [
            ("/v1/gesture", Data("hello, not an image".utf8), .badRequest, "badImage"),
            ("/v1/gesture", Data(), .badRequest, "badImage"),
            ("/v1/gesture", jpeg.prefix(jpeg.count / 2), .badRequest, "badImage"),
            ("/v1/gesture", Data(huge), .contentTooLarge, "imageTooLarge"),
            ("/v1/gesture", Data(repeating: 0xFF, count: 300_000), .contentTooLarge, "imageTooLarge"),
            ("/v1/gesture?numHands=99", jpeg, .badRequest, "badOption"),
            ("/v1/gesture?minHandDetectionConfidence=2", jpeg, .badRequest, "badOption"),
            // Just over 1: a Float rounds it to 1, which passed (schemathesis found it).
            ("/v1/gesture?minHandDetectionConfidence=1.0000000000000004", jpeg, .badRequest, "badOption"),
            ("/v1/pose?minPosePresenceConfidence=-0.0000000001", jpeg, .badRequest, "badOption"),
            ("/v1/gesture?colour=blue", jpeg, .badRequest, "badOption"),
            ("/v1/faces", jpeg, .notFound, "notFound"),
        ]
        try await ServerFixture.server().withLive { client, _ in
            for (uri, body, status, code) in cases {
                try await client.execute(uri: uri, method: .post, body: ByteBuffer(bytes: body)) { response in
                    XCTAssertEqual(response.status, status, uri)
                    let error = try ServerFixture.json(response.body)["error"] as? [String: Any]
                    XCTAssertEqual(error?["code"] as? String, code, uri)
                    XCTAssertFalse((error?["message"] as? String ?? "").isEmpty, uri)
                }
            }
            for method in [HTTPRequest.Method.get, .put, .delete] {
                try await client.execute(uri: "/v1/hands", method: method) { response in
                    XCTAssertEqual(response.status, .methodNotAllowed, "\(method)")
                    XCTAssertEqual(response.headers[.allow], "POST, OPTIONS")
                    let error = try ServerFixture.json(response.body)["error"] as? [String: Any]
                    XCTAssertEqual(error?["code"] as? String, "methodNotAllowed")
                    XCTAssertTrue((error?["message"] as? String ?? "").contains("POST"))
                }
            }
            try await client.execute(uri: "/v1/gesture", method: .post, body: ByteBuffer(bytes: jpeg)) { response in
                XCTAssertEqual(response.status, .ok, "the server goes on after bad requests")
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                XCTAssertTrue(text.contains("vision_tasks_errors_total{code=\"badImage\"}"), text)
            }
        }
    }
}
