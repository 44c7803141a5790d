/// One discrete touchless-control event from `GestureEventDetector` (a VisionTasks addition;
/// MediaPipe leaves this to app code): a thumbs up or down, or a sideways swipe of an open hand.
///
/// `Codable` as one line of `vision-tasks swipe --output-format jsonl`:
/// `{"timestampInMilliseconds": 1200, "event": "thumbsUp", "hand": 3, "handedness": "Right"}`.
public struct GestureEvent: Sendable, Hashable, Codable {
    /// What the hand did.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// The hand showed a thumbs up over several frames (the tutorial's "like").
        case thumbsUp
        /// The hand showed a thumbs down over several frames (the tutorial's "nope").
        case thumbsDown
        /// The open hand moved to the user's left (see `GestureEventOptions.inputIsMirrored`).
        case swipeLeft
        /// The open hand moved to the user's right.
        case swipeRight
    }

    /// What the hand did.
    public var kind: Kind
    /// The hand's identifier: the result's `handIdentifiers` entry (video and live-stream
    /// mode), or the hand's index in the result when the result has no identifiers.
    public var handIdentifier: Int
    /// "Left" or "Right", as the result reports the hand (with the landmarker's
    /// `inputIsMirrored` applied).
    public var handedness: String
    /// The timestamp of the frame that completed the event.
    public var timestampInMilliseconds: Int

    /// An event from its parts.
    public init(kind: Kind, handIdentifier: Int, handedness: String, timestampInMilliseconds: Int) {
        self.kind = kind
        self.handIdentifier = handIdentifier
        self.handedness = handedness
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    private enum CodingKeys: String, CodingKey {
        case timestampInMilliseconds, kind = "event", handIdentifier = "hand", handedness
    }
}
