import Foundation
import MediaIO
import VisionTasksServer

/// The layouts of the `live` and `http` fuzz inputs, shared by the two targets (which read
/// them) and by FuzzSeeds (which writes the seeds), so that the three agree on one format.
///
/// Both start with a flags byte whose bit 0 picks the server's limits: clear, the defaults of
/// `vision-tasks serve` (`ServerLimits()`); set, `tightLimits`, small enough that the fuzzer can
/// cross every limit within an input of a few kilobytes.
public enum ServerFuzzInput {
    /// Limits a few-kilobyte input can exceed: 1500 bytes, 64 x 64 pixels, 200-byte text messages,
    /// 3000-byte workout messages.
    public static let tightLimits: ServerLimits = {
        var limits = ServerLimits()
        limits.maxImageBytes = 1500
        limits.maxImagePixels = 64 * 64
        limits.maxTextBytes = 200
        limits.maxSamplesBytes = 3000
        return limits
    }()

    /// The most messages one live input holds (bounds the work per input).
    public static let maxMessages = 16

    static func limits(flags: UInt8) -> ServerLimits { flags & 1 == 0 ? ServerLimits() : tightLimits }

    /// The first line of `bytes` (up to a newline, which is dropped) and the rest.
    static func line(_ bytes: ArraySlice<UInt8>) -> (String, ArraySlice<UInt8>) {
        guard let newline = bytes.firstIndex(of: 0x0A) else {
            return (String(decoding: bytes, as: UTF8.self), bytes[bytes.endIndex...])
        }
        return (String(decoding: bytes[..<newline], as: UTF8.self), bytes[(newline + 1)...])
    }
}

/// One WebSocket message of a live input.
public enum FuzzLiveMessage: Equatable, Sendable {
    case text(String)
    case binary([UInt8])
}

/// A live session: the query of its `/v1/live?...` URL, then its messages.
///
///     flags byte | query line '\n' | message* (at most 16)
///     message: kind byte (bit 0 set: binary, clear: text) | length, 2 bytes little-endian
///              (cut to the bytes left) | payload
public struct LiveSessionInput: Sendable {
    public var limits: ServerLimits
    public var query: String
    public var messages: [FuzzLiveMessage]

    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        let all = ArraySlice(bytes)
        limits = ServerFuzzInput.limits(flags: all.first ?? 0)
        var rest: ArraySlice<UInt8>
        (query, rest) = ServerFuzzInput.line(all.dropFirst())
        messages = []
        while rest.count >= 3, messages.count < ServerFuzzInput.maxMessages {
            let kind = rest[rest.startIndex]
            let length = Int(rest[rest.startIndex + 1]) | Int(rest[rest.startIndex + 2]) << 8
            rest = rest.dropFirst(3)
            let payload = rest.prefix(length)
            rest = rest.dropFirst(payload.count)
            messages.append(kind & 1 == 1 ? .binary(Array(payload)) : .text(String(decoding: payload, as: UTF8.self)))
        }
    }

    /// The bytes of an input (for seeds); `tight` picks `ServerFuzzInput.tightLimits`.
    public static func encode(tight: Bool, query: String, messages: [FuzzLiveMessage]) -> [UInt8] {
        var out: [UInt8] = [tight ? 1 : 0] + Array(query.utf8) + [0x0A]
        for message in messages.prefix(ServerFuzzInput.maxMessages) {
            let (kind, payload): (UInt8, [UInt8]) =
                switch message {
                case .text(let text): (0, Array(text.utf8))
                case .binary(let bytes): (1, bytes)
                }
            let length = min(payload.count, 0xFFFF)
            out += [kind, UInt8(length & 0xFF), UInt8(length >> 8)] + payload.prefix(length)
        }
        return out
    }
}

/// An HTTP request to the API: its target (path and query), its `Content-Length` header and
/// its body.
///
///     flags byte | request target line '\n' | Content-Length line '\n' (empty: no header) | body
public struct HTTPRequestInput: Sendable {
    public var limits: ServerLimits
    public var target: String
    public var contentLength: String?
    public var body: [UInt8]

    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        let all = ArraySlice(bytes)
        limits = ServerFuzzInput.limits(flags: all.first ?? 0)
        var rest: ArraySlice<UInt8>
        (target, rest) = ServerFuzzInput.line(all.dropFirst())
        let length: String
        (length, rest) = ServerFuzzInput.line(rest)
        contentLength = length.isEmpty ? nil : length
        body = Array(rest)
    }

    /// The bytes of an input (for seeds).
    public static func encode(tight: Bool, target: String, contentLength: String?, body: [UInt8]) -> [UInt8] {
        [tight ? 1 : 0] + Array(target.utf8) + [0x0A] + Array((contentLength ?? "").utf8) + [0x0A] + body
    }
}

/// Stops the fuzzer with `message` when `condition` is false: a broken promise of the server
/// (an answer that does not encode, an image past the limits) is a finding like a crash.
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("fuzz check failed: \(message())\n".utf8))
    abort()
}

/// The JSON object of an answer's text, checked: it parses, and its `type` is `type`.
@discardableResult
public func checkAnswer(_ text: String?, type: String) -> [String: Any] {
    guard let text else {
        fuzzCheck(false, "a \(type) answer did not encode")
        return [:]
    }
    let object = try? JSONSerialization.jsonObject(with: Data(text.utf8))
    guard let answer = object as? [String: Any] else {
        fuzzCheck(false, "a \(type) answer is not a JSON object: \(text)")
        return [:]
    }
    fuzzCheck(answer["type"] as? String == type, "expected a \(type) answer: \(text)")
    return answer
}

/// A decoded image, checked against the server's promises: within the pixel limit, and of the
/// size `ImageHeader` reads from the same bytes (the server's early refusal relies on the header
/// scan finding what the decoder finds; EXIF orientation may swap the sides).
public func checkDecoded(width: Int, height: Int, bytes: Data, limits: ServerLimits) {
    fuzzCheck(bytes.count <= limits.maxImageBytes, "a \(bytes.count)-byte image passed the byte limit of \(limits.maxImageBytes)")
    fuzzCheck(
        width > 0 && height > 0 && width * height <= limits.maxImagePixels,
        "a \(width)x\(height) image passed the limit of \(limits.maxImagePixels) pixels")
    guard let header = ImageHeader.dimensions(of: bytes) else {
        fuzzCheck(false, "a \(width)x\(height) image decoded, but ImageHeader found no size in it")
        return
    }
    fuzzCheck(
        Set([header.width, header.height]) == Set([width, height]),
        "ImageHeader read \(header.width)x\(header.height) from an image that decoded as \(width)x\(height)")
}
