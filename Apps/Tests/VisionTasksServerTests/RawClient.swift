import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP client on localhost that speaks just enough WebSocket.
final class RawClient: @unchecked Sendable {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw ServerFixture.TestFailure("cannot connect to 127.0.0.1:\(port)") }
    }

    deinit { close(fd) }

    /// Makes reads give up after `seconds` (so that a test fails instead of hanging).
    func setReceiveTimeout(seconds: Int) {
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ServerFixture.TestFailure("send failed") }
            sent += n
        }
    }

    /// Reads until the end of the HTTP upgrade answer; returns its head.
    func readHead() throws -> String {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard recv(fd, &byte, 1, 0) == 1 else { throw ServerFixture.TestFailure("connection closed") }
            head.append(byte)
        }
        return String(decoding: head, as: UTF8.self)
    }

    /// The body of `GET path` (HTTP/1.1, read by its Content-Length).
    static func get(port: Int, path: String) throws -> Data {
        let client = try RawClient(port: port)
        try client.send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))
        let head = try client.readHead().lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { throw ServerFixture.TestFailure("no Content-Length in \(head)") }
        var body = [UInt8](repeating: 0, count: length)
        var read = 0
        while read < length {
            let n = body[read...].withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw ServerFixture.TestFailure("the answer ended early") }
            read += n
        }
        return Data(body)
    }

    /// Upgrades to a live session.
    func upgrade(query: String = "task=gesture") throws -> String {
        try upgrade(path: "/v1/live?\(query)")
    }

    /// Upgrades `path` to a WebSocket (a live session, or Chromium's DevTools).
    func upgrade(path: String) throws -> String {
        try send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".utf8))
        return try readHead()
    }

    /// A masked binary frame header for a payload of `length` bytes (client frames are masked).
    static func binaryHeader(length: Int) -> [UInt8] { header(opcode: 0x2, length: length) }

    /// A masked, final frame header with `opcode` for a payload of `length` bytes.
    static func header(opcode: UInt8, length: Int) -> [UInt8] {
        var header: [UInt8] = [0x80 | opcode]
        if length < 126 {
            header.append(0x80 | UInt8(length))
        } else if length < 65536 {
            header += [0x80 | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            header.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { header.append(UInt8((length >> shift) & 0xFF)) }
        }
        return header + [0, 0, 0, 0]  // a zero mask leaves the payload as it is
    }

    static func frame(_ payload: [UInt8]) -> [UInt8] { binaryHeader(length: payload.count) + payload }

    /// Exactly `count` bytes, or nil if the connection ends first (a read error or the receive
    /// timeout throws).
    func read(count: Int) throws -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var read = 0
        while read < count {
            let n = bytes[read...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return nil }
            guard n > 0 else {
                if errno == EINTR { continue }
                if errno == ECONNRESET { return nil }
                throw ServerFixture.TestFailure(errno == EAGAIN ? "no answer within the receive timeout" : "recv failed: errno \(errno)")
            }
            read += n
        }
        return bytes
    }

    /// The next frame from the server (server frames are not masked); nil when the connection ends.
    func readFrame() throws -> (fin: Bool, opcode: UInt8, payload: [UInt8])? {
        guard let start = try read(count: 2) else { return nil }
        guard start[1] & 0x80 == 0 else { throw ServerFixture.TestFailure("a masked frame from the server") }
        var length = Int(start[1] & 0x7F)
        if length >= 126 {
            guard let extended = try read(count: length == 126 ? 2 : 8) else { return nil }
            length = extended.reduce(0) { $0 << 8 | Int($1) }
            guard length >= 0, length <= 1 << 26 else { throw ServerFixture.TestFailure("a frame of \(length) bytes") }
        }
        guard let payload = try read(count: length) else { return nil }
        return (start[0] & 0x80 != 0, start[0] & 0x0F, payload)
    }

    /// Sends `bytes` and reads one HTTP answer: its head, lower-cased, and its body (by its
    /// `Content-Length`; empty without one).
    func answer(to bytes: [UInt8]) throws -> (head: String, body: String) {
        try send(bytes)
        return try nextAnswer()
    }

    /// Reads the next HTTP answer (to a request sent earlier): its head, lower-cased, and its
    /// body (by its `Content-Length`; empty without one).
    func nextAnswer() throws -> (head: String, body: String) {
        let head = try readHead().lowercased()
        let line = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
        let length = line.flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        let body = length > 0 ? try read(count: length) ?? [] : []
        return (head, String(decoding: body, as: UTF8.self))
    }

    /// Reads until the server closes the connection (true), or until the receive timeout
    /// passes with the connection still open (false); what arrives meanwhile is dropped.
    func waitForClose() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return true }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { return true }
                if errno == EAGAIN || errno == EWOULDBLOCK { return false }
                throw ServerFixture.TestFailure("recv failed: errno \(errno)")
            }
        }
    }

    /// Stops blocked reads and sends (a client that ran out of time).
    func shutDown() { shutdown(fd, Int32(SHUT_RDWR)) }
}
