import Foundation

/// What a live session makes of one client message before any task runs: a frame to decode and
/// process, or options that replace the session's settings. A message that is neither throws the
/// `ServerError` the session answers with (and the session goes on).
///
/// `VisionServer.runSession` reads every WebSocket message through these initialisers; so does
/// the `live` fuzz target (`Fuzz/`), which is why they take plain bytes and text rather than
/// Hummingbird's message type.
enum LiveMessage: Sendable {
    /// A binary message: a frame with its timestamp.
    case frame(LiveFrame)
    /// A text message: the session's settings with the message's options applied.
    case options(TaskSettings)
    /// A text message `{"teach": {...}}`: a request to record, train on or switch between
    /// taught gestures (`TeachRequest`).
    case teach(TeachRequest)

    /// A binary message is a frame (`LiveFrame`): `badMessage` when it is too short to hold a
    /// timestamp and an image, or its timestamp is negative.
    init(binary bytes: some Collection<UInt8>) throws(ServerError) {
        self = .frame(try LiveFrame(message: bytes))
    }

    /// A text message is a JSON object of options applied on top of `settings`, or a teach
    /// message (an object with the key `teach`): `badMessage` when it is longer than
    /// `limits.maxTextBytes` or not a JSON object of either kind, `badOption` for an unknown
    /// name or a value out of range.
    init(text: String, settings: TaskSettings, limits: ServerLimits) throws(ServerError) {
        guard text.utf8.count <= limits.maxTextBytes else {
            throw ServerError(code: .badMessage, message: "a text message is limited to \(limits.maxTextBytes) bytes")
        }
        if TeachRequest.isTeachMessage(text) {
            self = .teach(try TeachRequest(json: text))
        } else {
            self = .options(try settings.applying(json: text))
        }
    }
}
