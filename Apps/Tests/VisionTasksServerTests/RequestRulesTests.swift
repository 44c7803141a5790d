import Foundation
import HTTPTypes
import MediaIO
import NIOCore
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// What a request or a live message asks of the server beyond its syntax: decompression bombs
/// and images too wide for the tasks, options that do nothing for the task asked, timestamps
/// out of range, and many distinct option sets (the task-instance cache).
final class RequestRulesTests: XCTestCase {
    /// A server with the default limits (8 MiB, 4096 x 4096 pixels).
    private static let server = Result { try VisionServer(configuration: ServerFixture.configuration()) }

    /// Progressive JPEGs of 4096 x 4096 pixels made of tiny scans, each a pass over the image:
    /// 10 000 copies of one scan (433 kB; before, about 16 s of a core per request, and other
    /// requests waited), the same without libjpeg's warning, and 505 well-formed scans (53 kB,
    /// 3 s). Each is answered 400 `badImage` at its first bad scan or at the budget of 32
    /// passes; a live session gets the error and goes on.
    func testProgressiveJPEGScanBombsAreRefused() async throws {
        let jpeg = ProgressiveJPEG(width: 4096, height: 4096)
        let bombs: [(String, [UInt8], String)] = [
            ("warned repeats", jpeg.repeatedScanBomb(repeats: 10_000, low: 1), "progression"),
            ("silent repeats", jpeg.repeatedScanBomb(repeats: 10_000, low: 0), "codes coefficient 1"),
            ("505 scans", jpeg.manyScans(refinements: 7), "more than 32 times"),
        ]
        let still = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        try await Self.server.get().withLive { client, port in
            for (name, bomb, detail) in bombs {
                try await client.execute(uri: "/v1/gesture", method: .post, body: ByteBuffer(bytes: bomb)) { response in
                    XCTAssertEqual(response.status, .badRequest, name)
                    let error = try ServerFixture.json(response.body)["error"] as? [String: Any]
                    XCTAssertEqual(error?["code"] as? String, "badImage", name)
                    XCTAssertTrue((error?["message"] as? String ?? "").contains(detail), "\(name): \(String(describing: error))")
                }
            }
            try await liveSession(port: port) { reader, outbound in
                _ = try await reader.next(type: "ready")
                try await outbound.write(.binary(ServerFixture.frame(Data(bombs[0].1), timestamp: 1)))
                let error = try await reader.next(type: "error")
                XCTAssertEqual((error["error"] as? [String: Any])?["code"] as? String, "badImage")
                try await outbound.write(.binary(ServerFixture.frame(still, timestamp: 2)))
                let result = try await reader.next(type: "result")
                XCTAssertEqual(result["timestampInMilliseconds"] as? Int, 2)
            }
        }
    }

    /// A 65 500 x 256 JPEG is within the pixel limit but wider than the tasks take (32 767):
    /// 413 `imageTooLarge` from its header, not a 400 `taskFailed` after decoding it.
    func testAnImageWiderThanTheTasksTakeIsTooLargeFromItsHeader() async throws {
        let wide = try ImageEncoder.jpeg(try PixelBuffer(width: 65_500, height: 256, format: .gray8))
        try await Self.server.get().withLive { client, _ in
            try await client.execute(uri: "/v1/hands", method: .post, body: ByteBuffer(bytes: wide)) { response in
                XCTAssertEqual(response.status, .contentTooLarge)
                let error = try ServerFixture.json(response.body)["error"] as? [String: Any]
                XCTAssertEqual(error?["code"] as? String, "imageTooLarge")
                XCTAssertTrue((error?["message"] as? String ?? "").contains("32767 pixels a side"), "\(String(describing: error))")
            }
        }
    }

    /// Option names are percent-decoded like their values; options that do nothing for the task
    /// asked (`numPoses` for gesture, `numHands` for pose, `smoothing` on an HTTP request,
    /// which runs in image mode) are refused as unknown ones are. `mirrored` does act on a
    /// single image (handedness is flipped) and is taken.
    func testOptionsAreDecodedAndMustActOnTheTask() async throws {
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        try await ServerFixture.server().withLive { client, port in
            var handedness: [String] = []
            for query in ["numHands=2", "num%48ands=2&mirrored=true"] {
                try await client.execute(uri: "/v1/gesture?\(query)", method: .post, body: ByteBuffer(bytes: jpeg)) { response in
                    XCTAssertEqual(response.status, .ok, query)
                    let gesture = try ServerFixture.json(response.body)["gesture"] as? [String: Any]
                    let first = (gesture?["handedness"] as? [[[String: Any]]])?.first?.first
                    handedness.append(first?["categoryName"] as? String ?? "none")
                }
            }
            XCTAssertEqual(Set(handedness), ["Left", "Right"], "mirrored=true flips the handedness: \(handedness)")
            for (path, query) in [("gesture", "numPoses=2"), ("hands", "smoothing=true"), ("pose", "numHands=2"), ("pose", "mirrored=true"), ("hands", "num%ZZ=1")] {
                try await client.execute(uri: "/v1/\(path)?\(query)", method: .post, body: ByteBuffer(bytes: jpeg)) { response in
                    XCTAssertEqual(response.status, .badRequest, "\(path)?\(query)")
                    let error = try ServerFixture.json(response.body)["error"] as? [String: Any]
                    XCTAssertEqual(error?["code"] as? String, "badOption", "\(path)?\(query)")
                }
            }
            try await liveSession(port: port, query: "task=gesture&smoothing=true") { reader, outbound in
                _ = try await reader.next(type: "ready")
                try await outbound.write(.text(#"{"numPoses": 2}"#))
                let refused = try await reader.next(type: "error")
                XCTAssertEqual((refused["error"] as? [String: Any])?["code"] as? String, "badOption")
                try await outbound.write(.text(#"{"task": "pose", "numPoses": 2}"#))
                let ready = try await reader.next(type: "ready")
                XCTAssertEqual(ready["numPoses"] as? Int, 2)
            }
        }
    }

    /// The largest timestamp the tasks take is 9223372036854773 ms: a frame at 9223372036854774
    /// is a `badMessage` that says the range; one at the largest is processed. (Before, the
    /// task's own message, "it must fit in microseconds as a 64-bit integer", implied that
    /// 9223372036854774 was in range.)
    func testTheLiveTimestampRangeIsTheOneItSays() async throws {
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        let largest = Int(LiveFrame.largestTimestamp)
        XCTAssertEqual(largest, 9_223_372_036_854_773)
        try await ServerFixture.server().withLive { _, port in
            try await liveSession(port: port) { reader, outbound in
                _ = try await reader.next(type: "ready")
                var over = ByteBuffer()
                over.writeInteger(Int64(largest + 1), endianness: .little)
                over.writeBytes(jpeg)
                try await outbound.write(.binary(over))
                let error = try await reader.next(type: "error")
                let message = (error["error"] as? [String: Any])?["message"] as? String ?? ""
                XCTAssertTrue(message.contains("from 0 to \(largest) ms"), message)
                try await outbound.write(.binary(ServerFixture.frame(jpeg, timestamp: largest)))
                let result = try await reader.next(type: "result")
                XCTAssertEqual(result["timestampInMilliseconds"] as? Int, largest)
            }
        }
    }

    /// The cache of image-mode task instances: with more distinct option sets than it keeps, the
    /// set used least recently goes, and the default settings of every task stay.
    func testTheTaskCacheDropsTheLeastRecentlyUsedAndKeepsTheDefaults() throws {
        let server = try ServerFixture.server()
        let pool = EnginePool(library: server.library, maxSettings: 5)
        for task in TaskKind.allCases { try pool.warmUp(TaskSettings(task: task)) }
        var settings: [TaskSettings] = []
        for count in 1...3 {
            var asked = TaskSettings(task: .hands)
            asked.numHands = count + 1
            settings.append(asked)
            _ = try pool.withEngine(asked) { $0.settings }
        }
        let kept = pool.keptSettings
        XCTAssertEqual(kept.count, 5)
        for task in TaskKind.allCases { XCTAssertTrue(kept.contains(TaskSettings(task: task)), "\(task) defaults dropped") }
        XCTAssertFalse(kept.contains(settings[0]), "the least recently used set is kept")
        XCTAssertTrue(kept.contains(settings[1]) && kept.contains(settings[2]))
        // Using a kept set makes it the most recent: the next new set drops the other one.
        _ = try pool.withEngine(settings[1]) { $0.settings }
        _ = try pool.withEngine(settings[0]) { $0.settings }
        XCTAssertEqual(pool.keptSettings.subtracting(TaskKind.allCases.map { TaskSettings(task: $0) }), [settings[1], settings[0]])
    }
}
