import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MediaIO
import NIOCore
import NIOWebSocket
import ServiceLifecycle
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// Servers on the installed models, the shared stills as frames, and a live-session client.
enum ServerFixture {
    static func configuration(
        maxSessions: Int = 8, limits: ServerLimits = ServerLimits(), timeouts: ServerTimeouts = ServerTimeouts()
    ) throws -> ServerConfiguration {
        let store = ModelStore(directory: try SharedTestData.installedModels())
        for file in [ModelFile.gestureRecognizerBundle, .handLandmarkerBundle, .poseLandmarkerFullBundle] {
            try SharedTestData.require(store.path(for: file), what: "installed model \(file.rawValue)")
        }
        var configuration = ServerConfiguration(models: ServerModels(store: store))
        configuration.port = 0
        configuration.maxSessions = maxSessions
        configuration.limits = limits
        configuration.timeouts = timeouts
        configuration.threadsPerTask = 1
        return configuration
    }

    /// Limits small enough to test: 200 kB, 1000 × 1000 pixels.
    static let smallLimits: ServerLimits = {
        var limits = ServerLimits()
        limits.maxImageBytes = 200_000
        limits.maxImagePixels = 1_000_000
        limits.maxTextBytes = 1_000
        return limits
    }()

    private static let sharedServer = Result { try VisionServer(configuration: configuration(limits: smallLimits)) }

    /// One server (models read once) for the tests that need no special configuration.
    static func server() throws -> VisionServer { try sharedServer.get() }

    /// The bytes of a shared still, e.g. `hand_thumb_up_left_01.jpg`.
    static func still(_ name: String) throws -> Data {
        try Data(contentsOf: SharedTestData.file("media/\(name)"))
    }

    /// A live frame message: the 8-byte little-endian timestamp, then the image.
    static func frame(_ image: Data, timestamp: Int) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(Int64(timestamp), endianness: .little)
        buffer.writeBytes(image)
        return buffer
    }

    static func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        guard let dictionary = object as? [String: Any] else { throw TestFailure("not a JSON object: \(text)") }
        return dictionary
    }

    static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try json(String(buffer: buffer))
    }

    struct TestFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// Reads a live session's answers as JSON objects.
struct LiveReader {
    let client: LiveClient

    /// The next answer; nil when the server closed the session.
    mutating func next() async throws -> [String: Any]? {
        guard let message = try await client.next() else { return nil }
        guard case .text(let text) = message else { throw ServerFixture.TestFailure("a binary answer") }
        return try ServerFixture.json(text)
    }

    /// The next answer of `type` ("result", "error", "ready"), skipping others.
    mutating func next(type: String) async throws -> [String: Any] {
        while let answer = try await next() {
            if answer["type"] as? String == type { return answer }
        }
        throw ServerFixture.TestFailure("the session closed before a \(type) answer")
    }
}

extension VisionServer {
    /// Runs `test` against this server on a free port of localhost (its application alone, as a
    /// service group runs it), with an HTTP client for that port; then shuts the server down.
    @discardableResult
    func withLive<T: Sendable>(_ test: @escaping @Sendable (HTTPTestClient, Int) async throws -> T) async throws -> T {
        let port = PortBox()
        let group = ServiceGroup(configuration: .init(services: [makeApplication { port.set($0) }], logger: logger))
        let running = Task { try await group.run() }
        let outcome: Result<T, any Error>
        do {
            let bound = try await port.wait()
            outcome = .success(try await test(HTTPTestClient(port: bound), bound))
        } catch {
            outcome = .failure(error)
        }
        await group.triggerGracefulShutdown()
        try await running.value
        return try outcome.get()
    }
}

extension VisionServer {
    /// Runs `test` against this server with its drain (`makeServiceGroup`, as `run` serves),
    /// then shuts it down; fails instead of hanging when the shutdown does not end within
    /// `shutdownLimit`.
    func withDrain(
        shutdownLimit: Duration = .seconds(60), _ test: @escaping @Sendable (_ port: Int, _ group: ServiceGroup) async throws -> Void
    ) async throws {
        let port = PortBox()
        let group = makeServiceGroup { port.set($0) }
        let running = Task { try await group.run() }
        do {
            try await test(try await port.wait(), group)
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await running.value
            throw error
        }
        await group.triggerGracefulShutdown()
        let outcome = OnceResult<Void>()
        Task {
            do { outcome.set(.success(try await running.value)) } catch { outcome.set(.failure(error)) }
        }
        Task {
            try? await Task.sleep(for: shutdownLimit)
            outcome.set(.failure(ServerFixture.TestFailure("the server did not stop within \(shutdownLimit)")))
        }
        try await outcome.value().get()
    }
}

/// Connects to a live session and runs `body` with the reader and writer; then closes (normal
/// closure) unless `body` did, and returns the server's close frame.
@discardableResult
func liveSession(
    port: Int, query: String = "task=gesture", timeLimit: Duration = .seconds(120),
    _ body: @escaping @Sendable (inout LiveReader, LiveClient) async throws -> Void
) async throws -> LiveClose? {
    let client = try await offThePool { try LiveClient(port: port, query: query) }
    let session = Task {
        var reader = LiveReader(client: client)
        try await body(&reader, client)
        return try await client.finish()
    }
    // Bounded in time, as every test client: a session that never ends fails the test instead
    // of hanging the suite.
    let outcome = OnceResult<LiveClose?>()
    Task {
        do { outcome.set(.success(try await session.value)) } catch { outcome.set(.failure(error)) }
    }
    Task {
        try? await Task.sleep(for: timeLimit)
        outcome.set(.failure(ServerFixture.TestFailure("the live session did not end within \(timeLimit)")))
    }
    let result = await outcome.value()
    if case .failure = result {
        session.cancel()
        client.abort()
    }
    return try result.get()
}

/// The first result set wins; `value()` waits for it.
final class OnceResult<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private var waiter: CheckedContinuation<Result<T, any Error>, Never>?

    func set(_ value: Result<T, any Error>) {
        let resume: CheckedContinuation<Result<T, any Error>, Never>? = lock.withLock {
            guard result == nil else { return nil }
            result = value
            defer { waiter = nil }
            return waiter
        }
        resume?.resume(returning: value)
    }

    func value() async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            let ready: Result<T, any Error>? = lock.withLock {
                if let result { return result }
                waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// A flag shared with a client's closure.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var _value = false
    var value: Bool {
        get { lock.withLock { _value } }
        set { lock.withLock { _value = newValue } }
    }
}
