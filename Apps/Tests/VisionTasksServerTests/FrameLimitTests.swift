import Foundation
import HTTPTypes
import MediaIO
import NIOCore
import NIOWebSocket
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// The server's pixel limit holds for every image the decoders accept, whatever the header scan
/// makes of it: stray bytes between a JPEG's segments, which libjpeg skips and a header scan may
/// stop at, do not get an image past it (`FuzzReproducers.jpegWithStrayBytesBeforeFrameHeader`;
/// docs/fuzzing.md, defect 4).
final class FrameLimitTests: XCTestCase {
    /// The fuzzer's case: an 84 x 84 JPEG under the fuzz target's tight limit of 4096 pixels is
    /// refused, not decoded. With the default limits the same trick would let an 8 MiB upload
    /// make libjpeg allocate for 2^28 pixels instead of being refused at 16 M.
    func testStrayBytesBeforeTheFrameHeaderDoNotEvadeThePixelLimit() throws {
        let jpeg = Data(try FuzzReproducers.jpegWithStrayBytesBeforeFrameHeader(width: 84, height: 84))
        var limits = ServerLimits()
        limits.maxImagePixels = 64 * 64
        XCTAssertThrowsError(try FrameDecoder.decode(jpeg, limits: limits)) { error in
            XCTAssertEqual(
                error as? ServerError,
                ServerError(code: .imageTooLarge, message: "the image is 84x84 pixels; the limit is 4096 pixels"))
        }
        // Within the limit the file decodes (libjpeg skips the stray bytes), so the refusal above
        // is the limit's doing, not the file's damage.
        limits.maxImagePixels = 84 * 84
        let image = try FrameDecoder.decode(jpeg, limits: limits)
        XCTAssertEqual([image.width, image.height], [84, 84])
    }

    /// The same file through the HTTP API and a live session of the test server (limit 1 M
    /// pixels): refused with `imageTooLarge`, not run.
    func testStrayBytesBeforeTheFrameHeaderAreRefusedByTheServer() async throws {
        let server = try ServerFixture.server()
        XCTAssertEqual(server.configuration.limits.maxImagePixels, 1_000_000)
        let jpeg = Data(try FuzzReproducers.jpegWithStrayBytesBeforeFrameHeader(width: 1024, height: 1000))
        XCTAssertLessThan(jpeg.count, server.configuration.limits.maxImageBytes)
        try await server.withLive { client, port in
            try await client.execute(uri: "/v1/hands", method: .post, body: ByteBuffer(bytes: jpeg)) { response in
                XCTAssertEqual(response.status, .contentTooLarge)
                let error = try ServerFixture.json(response.body)["error"] as? [String: Any]
                XCTAssertEqual(error?["code"] as? String, "imageTooLarge")
                XCTAssertEqual(error?["message"] as? String, "the image is 1024x1000 pixels; the limit is 1000000 pixels")
            }
            try await liveSession(port: port) { reader, outbound in
                _ = try await reader.next(type: "ready")
                try await outbound.write(.binary(ServerFixture.frame(jpeg, timestamp: 7)))
                // The frame's answer, whatever its type (it must be an error, not a result).
                let answer = try await reader.next()
                XCTAssertEqual(answer?["type"] as? String, "error")
                XCTAssertEqual((answer?["error"] as? [String: Any])?["code"] as? String, "imageTooLarge")
                XCTAssertEqual(answer?["timestampInMilliseconds"] as? Int, 7)
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }
}
