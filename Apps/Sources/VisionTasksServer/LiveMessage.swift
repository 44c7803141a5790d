import Foundation

/// What a live session makes of one client message before any task runs: a frame to decode and
/// process, options that replace the session's settings, or a workout message. A message that is neither throws the
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
    /// A text message whose object has the key `workout`: pose classification and counting.
    case workout(WorkoutRequest)
    /// A text message `{"teach": {...}}`: a request to record, train on or switch between
    /// taught gestures (`TeachRequest`).
    case teach(TeachRequest)

    /// A binary message is a frame (`LiveFrame`): `badMessage` when it is too short to hold a
    /// timestamp and an image, or its timestamp is negative.
    init(binary bytes: some Collection<UInt8>) throws(ServerError) {
        self = .frame(try LiveFrame(message: bytes))
    }

    /// A text message is a JSON object of options applied on top of `settings`, a workout message
    /// (`WorkoutRequest`) or a teach message (`TeachRequest`): `badMessage` when it is longer
    /// than `limits.maxTextBytes` (`limits.maxSamplesBytes` for a workout message) or not a JSON
    /// object of one of these kinds, `badOption` for an unknown name or a value out of range.
    init(text: String, settings: TaskSettings, limits: ServerLimits) throws(ServerError) {
        let bytes = text.utf8.count
        guard bytes <= max(limits.maxTextBytes, limits.maxSamplesBytes) else {
            throw ServerError(code: .badMessage, message: "a text message is limited to \(limits.maxTextBytes) bytes (a workout message to \(limits.maxSamplesBytes))")
        }
        let keys = JSONObjectKeys.of(text) ?? []
        if keys.contains(WorkoutRequest.key) {
            guard settings.task == .pose else {
                throw ServerError(code: .badMessage, message: "a workout counts poses: switch the session to the pose task first ({\"task\": \"pose\"})")
            }
            self = .workout(try WorkoutRequest(text: text, limits: limits))
            return
        }
        guard bytes <= limits.maxTextBytes else {
            throw ServerError(code: .badMessage, message: "a text message is limited to \(limits.maxTextBytes) bytes")
        }
        if keys.contains(TeachRequest.key) {
            self = .teach(try TeachRequest(json: text))
        } else {
            self = .options(try settings.applying(json: text))
        }
    }
}
