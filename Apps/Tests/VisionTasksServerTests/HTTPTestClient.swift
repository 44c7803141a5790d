import Foundation
import HTTPTypes
import NIOCore

/// An HTTP/1.1 client for the server's tests on a plain socket, one connection per request
/// (`Connection: close`), so that the test build needs no HTTP client library (and none of the
/// TLS stack one brings). Reads the answer's body by its `Content-Length`, as chunks, or to the
/// end of the connection; reads give up after 60 s.
struct HTTPTestClient: Sendable {
    /// An answer: its status, headers and body.
    struct Response: Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: ByteBuffer
    }

    let port: Int

    /// Sends `method uri` with `headers` and `body`, then runs `check` on the answer.
    @discardableResult
    func execute<T>(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        _ check: (Response) async throws -> T
    ) async throws -> T {
        let port = self.port
        let response = try await offThePool { try Self.exchange(port: port, uri: uri, method: method, headers: headers, body: body) }
        return try await check(response)
    }

    private static func exchange(port: Int, uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) throws -> Response {
        let client = try RawClient(port: port)
        client.setReceiveTimeout(seconds: 60)
        var request = "\(method.rawValue) \(uri) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for field in headers { request += "\(field.name.rawName): \(field.value)\r\n" }
        let bytes = body.map { Array($0.readableBytesView) } ?? []
        if body != nil || method == .post || method == .put { request += "Content-Length: \(bytes.count)\r\n" }
        try client.send(Array((request + "\r\n").utf8) + bytes)

        let lines = try client.readHead().split(separator: "\r\n", omittingEmptySubsequences: true)
        let statusLine = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusLine.count >= 2, let code = Int(statusLine[1]) else {
            throw ServerFixture.TestFailure("not an HTTP answer: \(lines.first ?? "")")
        }
        var fields = HTTPFields()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
            fields.append(HTTPField(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let status = HTTPResponse.Status(code: code, reasonPhrase: statusLine.count > 2 ? String(statusLine[2]) : "")
        let bodyless = method == .head || status.kind == .informational || code == 204 || code == 304
        let answer: [UInt8]
        if bodyless {
            answer = []
        } else if let length = fields[.contentLength].flatMap({ Int($0) }) {
            guard let read = try client.read(count: length) else { throw ServerFixture.TestFailure("the answer ended early") }
            answer = read
        } else if fields[.transferEncoding]?.lowercased() == "chunked" {
            answer = try readChunks(client)
        } else {
            answer = try readToEnd(client)
        }
        return Response(status: status, headers: fields, body: ByteBuffer(bytes: answer))
    }

    /// A chunked body: hexadecimal sizes, each chunk and its line end, to the empty chunk.
    private static func readChunks(_ client: RawClient) throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            var line: [UInt8] = []
            while !line.suffix(2).elementsEqual([13, 10]) {
                guard let byte = try client.read(count: 1) else { throw ServerFixture.TestFailure("a chunked answer ended early") }
                line += byte
            }
            let text = String(decoding: line.dropLast(2), as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(text.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw ServerFixture.TestFailure("a bad chunk size '\(text)'")
            }
            guard let chunk = try client.read(count: size + 2) else { throw ServerFixture.TestFailure("a chunked answer ended early") }
            if size == 0 { return body }
            body += chunk.dropLast(2)
        }
    }

    private static func readToEnd(_ client: RawClient) throws -> [UInt8] {
        var body: [UInt8] = []
        while let byte = try client.read(count: 1) { body += byte }
        return body
    }
}
