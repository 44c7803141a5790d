/// The gestures of MediaPipe's canned gesture classifier, in the classifier's output order.
/// `GestureRecognizerResult.gestures` reports them by `rawValue` (e.g. "Thumb_Up").
///
/// The names are those in the metadata of Google's `gesture_recognizer.task`; they are also
/// used for a canned classifier that carries no labels (MediaPipe would report empty names).
public enum CannedGesture: String, Sendable, CaseIterable, Codable {
    /// No known gesture (the background class).
    case none = "None"
    /// A closed fist.
    case closedFist = "Closed_Fist"
    /// An open palm, fingers spread.
    case openPalm = "Open_Palm"
    /// The index finger pointing up.
    case pointingUp = "Pointing_Up"
    /// Thumb down.
    case thumbDown = "Thumb_Down"
    /// Thumb up.
    case thumbUp = "Thumb_Up"
    /// The victory (V) sign: index and middle finger up.
    case victory = "Victory"
    /// The "I love you" sign: thumb, index finger and pinky up.
    case iLoveYou = "ILoveYou"
}
