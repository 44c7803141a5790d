/// The gestures of MediaPipe's canned gesture classifier, in the classifier's output order.
/// `GestureRecognizerResult.gestures` reports them by `rawValue` (e.g. "Thumb_Up").
///
/// The names are those in the metadata of Google's `gesture_recognizer.task`; they are also
/// used for a canned classifier that carries no labels (MediaPipe would report empty names).
public enum CannedGesture: String, Sendable, CaseIterable, Codable {
    /// No known gesture (the background class).
    case none = "None"
    case closedFist = "Closed_Fist"
    case openPalm = "Open_Palm"
    case pointingUp = "Pointing_Up"
    case thumbDown = "Thumb_Down"
    case thumbUp = "Thumb_Up"
    case victory = "Victory"
    case iLoveYou = "ILoveYou"
}
