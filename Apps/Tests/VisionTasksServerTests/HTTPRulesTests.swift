import Foundation
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// What the server answers to HTTP that is malformed, to methods other than a route's, and to
/// requests from other names and sites. Sent on raw sockets, as a hostile client would.
final class HTTPRulesTests: XCTestCase {
    /// Sends `request` on a new connection: the answer's head (lower case) and body, and
    /// whether the server then closed the connection.
    private static func exchange(_ request: [UInt8], port: Int) async throws -> (head: String, body: String, closed: Bool) {
        try await offThePool {
            let client = try RawClient(port: port)
            client.setReceiveTimeout(seconds: 30)
            let answer = try client.answer(to: request)
            return (answer.head, answer.body, try client.waitForClose())
        }
    }

    private static func exchange(_ text: String, port: Int) async throws -> (head: String, body: String, closed: Bool) {
        try await exchange(Array(text.utf8), port: port)
    }

    /// Malformed requests are answered 400, 414 or 431 with a JSON error, and closed. Before,
    /// none was answered and every connection stayed open.
    func testMalformedRequestsAreAnsweredAndClosed() async throws {
        let post = "POST /v1/gesture HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        let cases: [(String, [UInt8], String, String)] = [
            ("negative Content-Length", Array((post + "Content-Length: -5\r\n\r\n").utf8), "400", "badRequest"),
            ("huge Content-Length", Array((post + "Content-Length: 99999999999999999999999\r\n\r\n").utf8), "400", "badRequest"),
            ("two Content-Lengths", Array((post + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n").utf8), "400", "badRequest"),
            ("Content-Length and Transfer-Encoding",
             Array((post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n").utf8), "400", "badRequest"),
            ("a garbage request line", Array("\u{01}\u{02} nonsense !!\r\n\r\n".utf8), "400", "badRequest"),
            ("a broken chunked body", Array((post + "Transfer-Encoding: chunked\r\nContent-Type: image/jpeg\r\n\r\nzz\r\nabc\r\n").utf8),
             "400", "badRequest"),
            ("a 1 MB URL", Array(("GET /" + String(repeating: "a", count: 1 << 20) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").utf8), "414", "uriTooLong"),
            ("a 1 MB header", Array(("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + String(repeating: "b", count: 1 << 20) + "\r\n\r\n").utf8),
             "431", "headersTooLarge"),
            ("10,000 headers", Array(("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (0..<10_000).map { "X-\($0): 1\r\n" }.joined() + "\r\n").utf8),
             "431", "headersTooLarge"),
        ]
        try await ServerFixture.server().withLive { _, port in
            for (name, request, status, code) in cases {
                let answer = try await Self.exchange(request, port: port)
                XCTAssertTrue(answer.head.hasPrefix("http/1.1 \(status)"), "\(name): \(answer.head)")
                XCTAssertTrue(answer.body.contains(#""code":"\#(code)""#), "\(name): \(answer.body)")
                XCTAssertTrue(answer.closed, "\(name): the connection stayed open")
            }
            // Malformed later requests on a kept-alive connection get the same JSON answers:
            // sent after the first request's answer, and sent with it in one write (the 400
            // then comes after the first request's 200, not in its place).
            let health = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            let later: [(String, [UInt8], String, String)] = [
                ("a negative Content-Length", Array("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n".utf8), "400", "badRequest"),
                ("a garbage request line", Array("\u{01}\u{02} nonsense !!\r\n\r\n".utf8), "400", "badRequest"),
                ("a broken chunked body",
                 Array("POST /v1/gesture HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n".utf8), "400", "badRequest"),
                ("10,000 headers", Array(("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (0..<10_000).map { "X-\($0): 1\r\n" }.joined() + "\r\n").utf8),
                 "431", "headersTooLarge"),
            ]
            for (name, request, status, code) in later {
                for together in [false, true] {
                    let (first, second, closed) = try await offThePool {
                        let client = try RawClient(port: port)
                        client.setReceiveTimeout(seconds: 30)
                        let first = try client.answer(to: Array(health.utf8) + (together ? request : []))
                        let second = together ? try client.nextAnswer() : try client.answer(to: request)
                        return (first, second, try client.waitForClose())
                    }
                    let what = "\(name) after a first request\(together ? ", in one write" : "")"
                    XCTAssertTrue(first.head.hasPrefix("http/1.1 200"), "\(what): \(first.head)")
                    XCTAssertTrue(second.head.hasPrefix("http/1.1 \(status)"), "\(what): \(second.head)")
                    XCTAssertTrue(second.head.contains("x-vision-tasks-instance: "), "\(what): \(second.head)")
                    XCTAssertTrue(second.body.contains(#""code":"\#(code)""#), "\(what): \(second.body)")
                    XCTAssertTrue(closed, "\(what): the connection stayed open")
                }
            }
        }
    }

    /// HEAD is answered where GET is (same status and headers, no body); OPTIONS says which
    /// methods a path takes; other methods are 405 with `Allow`; unknown paths 404 with JSON.
    func testHeadOptionsAndMethodsNotAllowed() async throws {
        try await ServerFixture.server().withLive { _, port in
            let page = try await offThePool { try RawClient.get(port: port, path: "/") }
            for path in ["/", "/healthz", "/app.js"] {
                let answer = try await Self.exchange("HEAD \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: port)
                XCTAssertTrue(answer.head.hasPrefix("http/1.1 200"), "\(path): \(answer.head)")
                XCTAssertTrue(answer.closed)
                if path == "/" { XCTAssertTrue(answer.head.contains("content-length: \(page.count)\r\n"), answer.head) }
            }
            for (path, allow) in [("/", "GET, HEAD, OPTIONS"), ("/healthz", "GET, HEAD, OPTIONS"), ("/v1/gesture", "POST, OPTIONS")] {
                let answer = try await Self.exchange("OPTIONS \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: port)
                XCTAssertTrue(answer.head.hasPrefix("http/1.1 204"), "\(path): \(answer.head)")
                XCTAssertTrue(answer.head.contains("allow: \(allow.lowercased())\r\n"), "\(path): \(answer.head)")
            }
            for (request, allow) in [("DELETE /healthz", "GET, HEAD, OPTIONS"), ("GET /v1/gesture", "POST, OPTIONS"), ("PUT /metrics", "GET, HEAD, OPTIONS")] {
                let answer = try await Self.exchange("\(request) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: port)
                XCTAssertTrue(answer.head.hasPrefix("http/1.1 405"), "\(request): \(answer.head)")
                XCTAssertTrue(answer.head.contains("allow: \(allow.lowercased())\r\n"), "\(request): \(answer.head)")
                XCTAssertTrue(answer.body.contains(#""code":"methodNotAllowed""#), answer.body)
            }
            let missing = try await Self.exchange("GET /nothing/here HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: port)
            XCTAssertTrue(missing.head.hasPrefix("http/1.1 404"), missing.head)
            XCTAssertTrue(missing.body.contains(#""code":"notFound""#), missing.body)
        }
    }

    /// Only the server's own names and origins are answered: a `Host` of another name (DNS
    /// rebinding), a page of another site (its `Origin`) posting an image or opening a live
    /// session, and `Origin: null` get 403, and no session is opened; the server's own names
    /// and origins, and a request without `Origin`, are served.
    func testOtherHostsAndOriginsAreForbidden() async throws {
        try await ServerFixture.server().withLive { _, port in
            let jpeg = [UInt8](try ServerFixture.still("hand_thumb_up_left_01.jpg"))
            func post(_ headers: String) -> [UInt8] {
                Array("POST /v1/gesture HTTP/1.1\r\n\(headers)Content-Type: text/plain\r\nContent-Length: \(jpeg.count)\r\nConnection: close\r\n\r\n".utf8) + jpeg
            }
            let refused: [(String, [UInt8])] = [
                ("rebinding Host", Array("GET /metrics HTTP/1.1\r\nHost: attacker.example:\(port)\r\nConnection: close\r\n\r\n".utf8)),
                ("another port's Host", Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port + 1)\r\nConnection: close\r\n\r\n".utf8)),
                ("cross-site POST", post("Host: 127.0.0.1:\(port)\r\nOrigin: http://evil.example\r\n")),
                ("Origin null", post("Host: 127.0.0.1:\(port)\r\nOrigin: null\r\n")),
                ("cross-site live session", Array(("GET /v1/live?task=gesture HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://evil.example\r\n"
                    + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)),
            ]
            for (name, request) in refused {
                let answer = try await Self.exchange(request, port: port)
                XCTAssertTrue(answer.head.hasPrefix("http/1.1 403"), "\(name): \(answer.head)")
                XCTAssertTrue(answer.body.contains(#""code":"forbidden""#), "\(name): \(answer.body)")
            }
            XCTAssertEqual(try ServerFixture.server().sessions.current, 0)
            for origin in ["http://127.0.0.1:\(port)", "http://localhost:\(port)", "http://[::1]:\(port)", nil] {
                let answer = try await Self.exchange(post("Host: localhost:\(port)\r\n" + (origin.map { "Origin: \($0)\r\n" } ?? "")), port: port)
                XCTAssertTrue(answer.head.hasPrefix("http/1.1 200"), "\(origin ?? "no Origin"): \(answer.head)")
            }
        }
    }

    /// The policy's names: loopback names for 127.0.0.1, interface addresses for 0.0.0.0,
    /// allowed origins (their hosts as `Host`, any port of theirs), ports checked.
    func testOriginPolicyNames() throws {
        let loopback = OriginPolicy(host: "127.0.0.1", port: 8080, allowedOrigins: ["https://vision.example.com", "http://box.local:9000"])
        for host in ["localhost:8080", "127.0.0.1:8080", "[::1]:8080", "LOCALHOST", "vision.example.com", "vision.example.com:443", "box.local:9000"] {
            XCTAssertTrue(loopback.allows(host: host), host)
        }
        for host in ["localhost:8081", "attacker.example", "attacker.example:8080", "127.0.0.1:0", "[::1", ":8080", "vision.example.com:8443"] {
            XCTAssertFalse(loopback.allows(host: host), host)
        }
        for origin in ["http://localhost:8080", "http://127.0.0.1:8080", "https://vision.example.com", "https://vision.example.com:443", "http://box.local:9000"] {
            XCTAssertTrue(loopback.allows(origin: origin), origin)
        }
        for origin in ["null", "http://localhost", "https://localhost:8080", "http://evil.example", "http://localhost:8080/x", "file://", "http://vision.example.com"] {
            XCTAssertFalse(loopback.allows(origin: origin), origin)
        }
        let everywhere = OriginPolicy(host: "0.0.0.0", port: 8080, allowedOrigins: [])
        XCTAssertTrue(everywhere.allows(host: "127.0.0.1:8080"))
        for address in OriginPolicy.interfaceAddresses() {
            XCTAssertTrue(everywhere.allows(host: "\(address):8080"), address)
            XCTAssertTrue(everywhere.allows(origin: "http://\(address):8080"), address)
        }
        XCTAssertNil(OriginPolicy.parseOrigin("vision.example.com"))
        XCTAssertNil(OriginPolicy.parseOrigin("ftp://vision.example.com"))
        var configuration = try ServerFixture.configuration()
        configuration.allowedOrigins = ["vision.example.com"]
        XCTAssertThrowsError(try VisionServer(configuration: configuration)) { XCTAssertTrue("\($0)".contains("scheme://host"), "\($0)") }
    }
}
