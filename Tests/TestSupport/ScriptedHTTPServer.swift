import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP server on 127.0.0.1 that answers every connection with bytes a test scripts: the
/// cameras and hostile sources `ffmpeg -listen` cannot play (an MJPEG stream that ends by
/// closing the connection, as mjpg-streamer does; a part that never ends; garbage). One
/// connection at a time, on its own thread; every script is bounded in bytes and time.
public final class ScriptedHTTPServer: @unchecked Sendable {
    /// What is written to one connection, after its request head was read. `send` returns
    /// false once the client has gone (`send([])` only checks that).
    public typealias Script = @Sendable (_ send: ([UInt8]) -> Bool) -> Void

    public let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var served = 0

    /// Listens on a free port of 127.0.0.1 and serves `script` to each connection.
    public init(script: @escaping Script) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            close(fd)
            throw LiveStreamServer.ServerError(description: "cannot listen on 127.0.0.1")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in
            while !isStopped {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { break }
                var timeout = timeval(tv_sec: 2, tv_usec: 0)
                setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                Self.readRequestHead(client)
                script { bytes in Self.send(client, bytes) }
                lock.withLock { served += 1 }
                close(client)
            }
        }
    }

    /// Connections served to the end of their script.
    public var connectionsServed: Int { lock.withLock { served } }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Stops listening (a script in progress runs to its end or to the client's going).
    public func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        if first {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    deinit { stop() }

    private static func readRequestHead(_ fd: Int32) {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while head.count < 65_536, !head.suffix(4).elementsEqual([13, 10, 13, 10]), recv(fd, &byte, 1, 0) == 1 {
            head.append(byte)
        }
    }

    /// Sends `bytes`; with none, only checks that the client is still there.
    private static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        if bytes.isEmpty {
            var byte: UInt8 = 0
            let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// The head of a multipart MJPEG answer, as mjpg-streamer writes it (HTTP/1.0, no length).
    public static func mjpegHead(boundary: String = "boundarydonotcross") -> [UInt8] {
        Array(("HTTP/1.0 200 OK\r\nConnection: close\r\nCache-Control: no-cache\r\n"
            + "Content-Type: multipart/x-mixed-replace;boundary=\(boundary)\r\n\r\n--\(boundary)\r\n").utf8)
    }

    /// One part of it: `headers` (e.g. `Content-Length: N`), the data, and the next boundary.
    public static func mjpegPart(_ data: [UInt8], headers: [String], boundary: String = "boundarydonotcross") -> [UInt8] {
        Array((["Content-Type: image/jpeg"] + headers).map { $0 + "\r\n" }.joined().utf8) + [13, 10] + data
            + Array("\r\n--\(boundary)\r\n".utf8)
    }
}
