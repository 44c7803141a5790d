import Foundation
import NIOCore
import NIOWebSocket

/// A live-session client on a plain socket, as a browser sees the server: every byte the
/// server sends is read in order.
///
/// The tests used Hummingbird's `WebSocketClient` before. Under CPU load it sometimes never
/// delivered a message that the server wrote right after the upgrade (a refusal, seen in 4 of
/// 6 loaded runs of the session-limit test; once a "ready"), although the bytes were on the
/// wire: a raw-socket client received all of 600 such refusals at once, loaded or not. So the
/// server's tests speak WebSocket themselves, on blocking reads off Swift's cooperative pool.
final class LiveClient: @unchecked Sendable {
    /// A message to send.
    enum Message {
        case binary(ByteBuffer)
        case text(String)
    }

    /// A message received: the payload of a text or binary message.
    enum Received {
        case binary([UInt8])
        case text(String)
    }

    private let raw: RawClient
    private let lock = NSLock()
    private var closeSent = false
    private var receivedClose: LiveClose?

    /// Connects and upgrades to `/v1/live?query`; reads give up after `receiveTimeout` seconds.
    convenience init(port: Int, query: String, receiveTimeout: Int = 60) throws {
        try self.init(port: port, path: "/v1/live?\(query)", receiveTimeout: receiveTimeout)
    }

    /// Connects and upgrades to `path` on localhost (Chromium's DevTools speak WebSocket too).
    init(port: Int, path: String, receiveTimeout: Int = 60) throws {
        raw = try RawClient(port: port)
        raw.setReceiveTimeout(seconds: receiveTimeout)
        let head = try raw.upgrade(path: path)
        guard head.hasPrefix("HTTP/1.1 101") else { throw ServerFixture.TestFailure("the upgrade was refused: \(head)") }
    }

    /// The server's close frame, once received.
    var close: LiveClose? { lock.withLock { receivedClose } }

    /// Sends a message. A server that has already closed the connection is not an error here:
    /// the next read says how it closed.
    func write(_ message: Message) async throws {
        let frame: [UInt8]
        switch message {
        case .binary(var buffer):
            let payload = buffer.readBytes(length: buffer.readableBytes) ?? []
            frame = RawClient.header(opcode: 0x2, length: payload.count) + payload
        case .text(let text):
            frame = RawClient.header(opcode: 0x1, length: text.utf8.count) + Array(text.utf8)
        }
        try await offThePool { self.sendIgnoringClosedConnection(frame) }
    }

    /// Starts the closing handshake with `code` (once; later calls do nothing).
    func close(_ code: WebSocketErrorCode, reason: String?) async throws {
        try await offThePool { self.sendClose(code, reason: reason) }
    }

    /// The next text or binary message; nil once the server has closed the session.
    func next() async throws -> Received? {
        try await offThePool { try self.readMessage() }
    }

    /// Closes (normal closure) if the test did not, and reads until the server closes the
    /// connection; returns the server's close frame.
    func finish() async throws -> LiveClose? {
        try await offThePool {
            self.sendClose(.normalClosure, reason: nil)
            while try self.readMessage() != nil {}
            while try self.raw.readFrame() != nil {}
            return self.close
        }
    }

    /// Unblocks reads and writes of a client that ran out of time.
    func abort() { raw.shutDown() }

    private func readMessage() throws -> Received? {
        if close != nil { return nil }
        var fragments: [UInt8] = []
        var messageOpcode: UInt8?
        while let frame = try raw.readFrame() {
            switch frame.opcode {
            case 0x8:
                let code = frame.payload.count >= 2 ? Int(frame.payload[0]) << 8 | Int(frame.payload[1]) : 1005
                let reason = frame.payload.count > 2 ? String(decoding: frame.payload.dropFirst(2), as: UTF8.self) : nil
                lock.withLock { receivedClose = LiveClose(closeCode: WebSocketErrorCode(codeNumber: code), reason: reason) }
                sendClose(WebSocketErrorCode(codeNumber: code), reason: nil)
                return nil
            case 0x9:
                sendIgnoringClosedConnection(RawClient.header(opcode: 0xA, length: frame.payload.count) + frame.payload)
            case 0xA:
                continue
            case 0x0, 0x1, 0x2:
                if frame.opcode != 0 { messageOpcode = frame.opcode }
                fragments += frame.payload
                guard frame.fin else { continue }
                guard let opcode = messageOpcode else { throw ServerFixture.TestFailure("a continuation without a message") }
                return opcode == 0x1 ? .text(String(decoding: fragments, as: UTF8.self)) : .binary(fragments)
            default:
                throw ServerFixture.TestFailure("a frame with opcode \(frame.opcode)")
            }
        }
        return nil
    }

    private func sendClose(_ code: WebSocketErrorCode, reason: String?) {
        let first = lock.withLock {
            defer { closeSent = true }
            return !closeSent
        }
        guard first else { return }
        var payload = ByteBuffer()
        payload.write(webSocketErrorCode: code)
        payload.writeString(reason ?? "")
        let bytes = payload.readBytes(length: payload.readableBytes) ?? []
        sendIgnoringClosedConnection(RawClient.header(opcode: 0x8, length: bytes.count) + bytes)
    }

    private func sendIgnoringClosedConnection(_ bytes: [UInt8]) {
        _ = try? raw.send(bytes)
    }
}

/// How the server closed a live session.
struct LiveClose: Sendable {
    var closeCode: WebSocketErrorCode
    var reason: String?
}
