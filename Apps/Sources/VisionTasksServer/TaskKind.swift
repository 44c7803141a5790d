/// The tasks the server runs; the raw value is the name in URLs (`/v1/gesture`,
/// `/v1/live?task=gesture`) and the key of the result in answers, as in the CLI's JSON.
public enum TaskKind: String, Sendable, Hashable, CaseIterable {
    /// `GestureRecognizer`: gestures, handedness and hand landmarks.
    case gesture
    /// `HandLandmarker`: handedness and hand landmarks.
    case hands
    /// `PoseLandmarker`: 33 body landmarks per person.
    case pose
}
