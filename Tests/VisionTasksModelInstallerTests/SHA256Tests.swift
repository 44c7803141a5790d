import Foundation
import TestSupport
import VisionTasks
@testable import VisionTasksModelInstaller
import XCTest

final class SHA256Tests: XCTestCase {
    /// FIPS 180-4 / NIST example vectors.
    func testKnownVectors() {
        XCTAssertEqual(SHA256.hexDigest(of: [UInt8]()),
                       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hexDigest(of: Array("abc".utf8)),
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hexDigest(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            SHA256.hexDigest(of: Array(("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu").utf8)),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        XCTAssertEqual(SHA256.hexDigest(of: [UInt8](repeating: 0x61, count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Messages whose padding falls on each side of a block boundary (55, 56, 63, 64, 65 bytes).
    func testPaddingBoundaries() {
        let expected: [Int: String] = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            63: "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
            65: "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0",
        ]
        for (count, digest) in expected {
            XCTAssertEqual(SHA256.hexDigest(of: [UInt8](repeating: 0x61, count: count)), digest, "\(count) bytes")
        }
    }

    /// Feeding a message in pieces of any size gives the same digest as feeding it at once.
    func testIncrementalUpdatesMatchOneShot() {
        var generator = SplitMix(seed: 7)
        let message = (0..<1000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let oneShot = SHA256.hexDigest(of: message)
        for split in [1, 3, 63, 64, 65, 127, 500] {
            var hasher = SHA256()
            var offset = 0
            while offset < message.count {
                let end = min(offset + split, message.count)
                hasher.update(Array(message[offset..<end]))
                offset = end
            }
            XCTAssertEqual(SHA256.hex(hasher.finalize()), oneShot, "pieces of \(split)")
        }
    }

    /// Agrees with the system's `sha256sum` on a random file of a few blocks and odd length.
    func testAgreesWithSha256sum() throws {
        let tool = "/usr/bin/sha256sum"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw XCTSkip("\(tool) not available")
        }
        var generator = SplitMix(seed: 42)
        let bytes = (0..<200_003).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sha256-\(UUID().uuidString).bin")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let reference = String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init)

        XCTAssertEqual(try SHA256.hexDigest(ofFileAt: url), reference)
        XCTAssertEqual(SHA256.hexDigest(of: bytes), reference)
    }

    /// The hand-placed or installed model files hash to the manifest's sums.
    func testInstalledModelMatchesManifest() throws {
        let url = try SharedTestData.installedModel("palm_detection_lite.tflite")
        XCTAssertEqual(try SHA256.hexDigest(ofFileAt: url), ModelManifest.sha256(of: .palmDetectionLite))
    }
}

/// A small deterministic generator for test data.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
