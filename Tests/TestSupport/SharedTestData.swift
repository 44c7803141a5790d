import Foundation
import XCTest

/// Where the tests find `../shared` (test media, MediaPipe references, conformance tensors)
/// and the installed models.
///
/// When a resource is missing, a test is skipped with a message, except under CI
/// (`CI=true`), where it fails: CI must prove everything.
public enum SharedTestData {
    /// Raised under CI when a resource that a test needs is missing.
    public struct MissingResource: Error, CustomStringConvertible {
        public let description: String
    }

    /// Whether we run under CI (`CI` set to `true` or `1`).
    public static var isCI: Bool {
        let value = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        return value == "true" || value == "1"
    }

    /// The project's root folder (the one holding Package.swift).
    public static var projectRoot: URL {
        // This file is Tests/TestSupport/SharedTestData.swift.
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `$VISION_TASKS_TESTDATA`, or `../shared/testdata` beside the project root.
    public static func testdata() throws -> URL {
        let url: URL
        if let env = ProcessInfo.processInfo.environment["VISION_TASKS_TESTDATA"], !env.isEmpty {
            url = URL(fileURLWithPath: env)
        } else {
            url = projectRoot.deletingLastPathComponent().appendingPathComponent("shared/testdata")
        }
        try require(url, what: "shared test data (set VISION_TASKS_TESTDATA or place it at ../shared/testdata)")
        return url
    }

    /// A file or folder inside the test data, e.g. `media/neg_banana.jpg`.
    public static func file(_ relativePath: String) throws -> URL {
        let url = try testdata().appendingPathComponent(relativePath)
        try require(url, what: "test data file \(relativePath)")
        return url
    }

    /// `../shared/models` (the reference bundles MediaPipe's outputs were made with).
    public static func referenceModels() throws -> URL {
        let url = try testdata().deletingLastPathComponent().appendingPathComponent("models")
        try require(url, what: "reference model bundles (../shared/models)")
        return url
    }

    /// The installed models: `$VISION_TASKS_MODELS` or `~/.cache/vision-tasks/models`.
    public static func installedModels() throws -> URL {
        let env = ProcessInfo.processInfo.environment
        let url: URL
        if let dir = env["VISION_TASKS_MODELS"], !dir.isEmpty {
            url = URL(fileURLWithPath: dir)
        } else {
            url = FileManager.default.homeDirectoryForCurrentUser
                .appendingPathComponent(".cache/vision-tasks/models")
        }
        try require(url, what: "installed models (run `vision-tasks models install`)")
        return url
    }

    /// An installed model file, e.g. `hand_landmark_full.tflite`.
    public static func installedModel(_ name: String) throws -> URL {
        let url = try installedModels().appendingPathComponent(name)
        try require(url, what: "installed model \(name) (run `vision-tasks models install`)")
        return url
    }

    /// The error for a missing resource: a skip, or under CI a failure.
    public static func missing(_ message: String) -> any Error {
        isCI ? MissingResource(description: message) : XCTSkip(message)
    }

    /// Skips (or, under CI, fails) when `url` does not exist.
    public static func require(_ url: URL, what: String) throws {
        if FileManager.default.fileExists(atPath: url.path) { return }
        let message = "missing \(what): \(url.path)"
        if isCI { throw MissingResource(description: message) }
        throw XCTSkip(message)
    }
}
