import Foundation

/// One camera frame of a live session, as a binary WebSocket message: the frame's capture
/// timestamp in milliseconds as an 8-byte little-endian signed integer, then the JPEG (or PNG)
/// bytes. Timestamps must increase from frame to frame within a session.
///
///     offset 0: Int64 little-endian, milliseconds   offset 8...: the encoded image
struct LiveFrame: Sendable {
    static let headerSize = 8
    /// The largest timestamp a task takes: MediaPipe keeps timestamps in microseconds in an
    /// `Int64`, and the tasks refuse the last millisecond of that range.
    static let largestTimestamp: Int64 = Int64.max / 1000 - 2

    var timestampInMilliseconds: Int
    var image: Data

    /// Reads a binary message; `badMessage` when it is too short to hold a timestamp and an image.
    init(message bytes: some Collection<UInt8>) throws(ServerError) {
        guard bytes.count > Self.headerSize else {
            throw ServerError(
                code: .badMessage,
                message: "a frame is an 8-byte little-endian timestamp in milliseconds followed by a JPEG or PNG; this message has \(bytes.count) bytes")
        }
        var timestamp: UInt64 = 0
        for (i, byte) in bytes.prefix(Self.headerSize).enumerated() {
            timestamp |= UInt64(byte) << (8 * UInt64(i))
        }
        let signed = Int64(bitPattern: timestamp)
        guard signed >= 0, signed <= Self.largestTimestamp else {
            throw ServerError(
                code: .badMessage,
                message: "the frame's timestamp \(signed) is out of range: it must be from 0 to \(Self.largestTimestamp) ms")
        }
        timestampInMilliseconds = Int(signed)
        image = Data(bytes.dropFirst(Self.headerSize))
    }
}
