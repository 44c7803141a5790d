import Foundation
import HTTPTypes
import NIOCore
import TestSupport
import XCTest

@testable import VisionTasksServer

/// The OpenAPI document of the HTTP API (`GET /openapi.json`, docs/openapi.json) against the
/// server itself: the served document is docs/openapi.json byte for byte, it lists every route
/// the server answers with its methods, and schemathesis, driving the live server for a bounded
/// number of cases from the document, finds no 5xx and no answer the document does not
/// describe (status, content type, headers, body schema, 405 for other methods). And the
/// replica's name (`ServerConfiguration.instance`) on every answer.
final class OpenAPITests: XCTestCase {
    static let instance = "replica-a.openapi-test"

    /// One server (models read once) with small limits and its own instance name.
    private static let sharedServer = Result { () throws -> VisionServer in
        var configuration = try ServerFixture.configuration(limits: ServerFixture.smallLimits)
        configuration.instance = instance
        return try VisionServer(configuration: configuration)
    }

    private var documentURL: URL { SharedTestData.projectRoot.appendingPathComponent("docs/openapi.json") }

    /// docs/openapi.json is what the server serves, not a second copy kept by hand.
    func testServedDocumentIsDocsOpenAPIJSON() async throws {
        let server = try Self.sharedServer.get()
        let checkedIn = try Data(contentsOf: documentURL)
        try await server.withLive { client, _ in
            try await client.execute(uri: "/openapi.json", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.headers[.contentType], "application/json")
                XCTAssertEqual(response.headers[.visionTasksInstance], Self.instance)
                XCTAssertTrue(
                    Data(response.body.readableBytesView) == checkedIn,
                    "docs/openapi.json differs from Apps/Sources/VisionTasksServer/OpenAPI/openapi.json, which the server serves: cp Apps/Sources/VisionTasksServer/OpenAPI/openapi.json docs/")
            }
        }
    }

    /// The document's paths are the server's routes (`VisionServer.routeMethods`), each with its
    /// methods, `HEAD` where `GET` is answered, and `OPTIONS`; and every operation's answers carry
    /// the instance header.
    func testDocumentListsEveryRouteWithItsMethods() throws {
        let server = try Self.sharedServer.get()
        let object = try JSONSerialization.jsonObject(with: server.openAPIDocument)
        let paths = try XCTUnwrap((object as? [String: Any])?["paths"] as? [String: [String: Any]])
        XCTAssertEqual(Set(paths.keys), Set(server.routeMethods.keys))
        for (path, methods) in server.routeMethods {
            var expected = Set(methods.map { $0.rawValue.lowercased() })
            if methods.contains(.get) { expected.insert("head") }
            expected.insert("options")
            let operations = paths[path] ?? [:]
            XCTAssertEqual(Set(operations.keys), expected, path)
            for (method, operation) in operations {
                let responses = (operation as? [String: Any])?["responses"] as? [String: [String: Any]] ?? [:]
                XCTAssertFalse(responses.isEmpty, "\(method) \(path)")
                for (status, response) in responses where response["$ref"] == nil {
                    let headers = response["headers"] as? [String: Any] ?? [:]
                    XCTAssertNotNil(headers["X-Vision-Tasks-Instance"], "\(method) \(path) \(status)")
                }
            }
        }
    }

    /// schemathesis against the live server: every operation of the document, a few cases each
    /// (schema-valid and schema-invalid), bounded in time. `positive_data_acceptance` is left
    /// out: a schema-valid body is any bytes, which the tasks answer 400 `badImage`, and a plain
    /// `GET /v1/live` is 426 by design.
    func testSchemathesisFindsNoServerErrorAndNoUndocumentedAnswer() async throws {
        let program = try Schemathesis.executable()
        let server = try Self.sharedServer.get()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("schemathesis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let checks = [
            "not_a_server_error", "status_code_conformance", "content_type_conformance", "response_headers_conformance",
            "response_schema_conformance", "negative_data_rejection", "unsupported_method", "allow_header_conformance",
            "missing_required_header",
        ]
        let started = ContinuousClock.now
        let (status, output) = try await server.withLive { _, port in
            try await Self.run(
                program,
                [
                    "run", "http://127.0.0.1:\(port)/openapi.json", "--url", "http://127.0.0.1:\(port)", "--checks", checks.joined(separator: ","),
                    "--max-examples", "5", "--seed", "20261127", "--workers", "1", "--phases", "coverage,fuzzing",
                    "--request-timeout", "30", "--no-color",
                ],
                in: work, timeLimit: .seconds(150))
        }
        let elapsed = ContinuousClock.now - started
        let summary = output.split(separator: "\n").suffix(40).joined(separator: "\n")
        XCTAssertEqual(status, 0, "schemathesis found problems (\(elapsed)):\n\(output.suffix(12_000))")
        // It tested every operation it found in the document (schemathesis counts `/`'s `HEAD`
        // and `GET` as one), and they are nearly all of the document's.
        let object = try JSONSerialization.jsonObject(with: server.openAPIDocument)
        let paths = (object as? [String: Any])?["paths"] as? [String: [String: Any]] ?? [:]
        let operations = paths.values.map(\.count).reduce(0, +)
        let selected = try NSRegularExpression(pattern: #"Selected: (\d+)/(\d+)"#)
        let match = selected.firstMatch(in: output, range: NSRange(output.startIndex..., in: output))
        let counts = (1...2).compactMap { index in match.flatMap { Range($0.range(at: index), in: output) }.flatMap { Int(output[$0]) } }
        XCTAssertEqual(counts.count, 2, "no operation count in:\n\(summary)")
        if counts.count == 2 {
            XCTAssertEqual(counts[0], counts[1], summary)
            XCTAssertGreaterThanOrEqual(counts[1], operations - 1, "the document has \(operations) operations:\n\(summary)")
            XCTAssertTrue(output.contains("Tested: \(counts[1])"), summary)
        }
        print("schemathesis: \(counts.last ?? 0) operations in \(elapsed)\n\(summary)")
    }

    /// `X-Vision-Tasks-Instance` on answers of every kind: a route's, an error's (404, 405),
    /// `OPTIONS`, `HEAD`, one written before HTTP is parsed (malformed request), and the
    /// WebSocket upgrade's 101; and `instance` in a live session's first `ready` message.
    func testEveryAnswerNamesTheInstance() async throws {
        let server = try Self.sharedServer.get()
        try await server.withLive { client, port in
            for (uri, method, status) in [
                ("/healthz", HTTPRequest.Method.get, HTTPResponse.Status.ok), ("/readyz", .head, .ok), ("/metrics", .options, .noContent),
                ("/nothing-here", .get, .notFound), ("/v1/pose", .get, .methodNotAllowed), ("/v1/hands?numHands=9", .post, .badRequest),
            ] {
                try await client.execute(uri: uri, method: method) { response in
                    XCTAssertEqual(response.status, status, "\(method) \(uri)")
                    XCTAssertEqual(response.headers[.visionTasksInstance], Self.instance, "\(method) \(uri)")
                }
            }
            let (malformed, upgraded) = try await offThePool { () -> (String, String) in
                let raw = try RawClient(port: port)
                raw.setReceiveTimeout(seconds: 30)
                let answer = try raw.answer(to: Array("\u{01}\u{02} nonsense !!\r\n\r\n".utf8))
                let live = try RawClient(port: port)
                live.setReceiveTimeout(seconds: 30)
                return (answer.head, try live.upgrade())
            }
            XCTAssertTrue(malformed.hasPrefix("http/1.1 400"), malformed)
            XCTAssertTrue(malformed.contains("x-vision-tasks-instance: \(Self.instance)"), malformed)
            XCTAssertTrue(upgraded.hasPrefix("HTTP/1.1 101"), upgraded)
            XCTAssertTrue(upgraded.lowercased().contains("x-vision-tasks-instance: \(Self.instance)"), upgraded)
            try await liveSession(port: port) { reader, _ in
                let ready = try await reader.next(type: "ready")
                XCTAssertEqual(ready["instance"] as? String, Self.instance)
            }
        }
    }

    /// An instance name that a header cannot carry is refused before the server starts.
    func testInstanceNamesAreChecked() throws {
        XCTAssertTrue(ServerConfiguration.isInstanceName("vision-tasks-7c9f6d-2xk4q"))
        XCTAssertTrue(ServerConfiguration.isInstanceName(ServerConfiguration.defaultInstance))
        for bad in ["", "two words", "line\r\nX-Injected: 1", String(repeating: "a", count: 129), "é"] {
            XCTAssertFalse(ServerConfiguration.isInstanceName(bad), bad)
            var configuration = try ServerFixture.configuration()
            configuration.instance = bad
            XCTAssertThrowsError(try configuration.validate(), bad)
        }
    }

    /// Runs `program` in `directory` with its output in a file (no pipe to fill), without
    /// holding a thread of the pool the server runs on; kills it after `timeLimit`.
    private static func run(_ program: String, _ arguments: [String], in directory: URL, timeLimit: Duration) async throws -> (Int32, String) {
        let log = directory.appendingPathComponent("output.txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment["COLUMNS"] = "120"
        process.environment = environment
        let exited = OnceResult<Int32>()
        process.terminationHandler = { exited.set(.success($0.terminationStatus)) }
        try process.run()
        let watchdog = Task {
            try? await Task.sleep(for: timeLimit)
            if process.isRunning { process.terminate() }
        }
        let status = try await exited.value().get()
        watchdog.cancel()
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return (status, output)
    }
}
