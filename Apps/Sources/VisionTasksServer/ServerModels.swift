import Foundation
import VisionTasks

/// The `.task` bundles the server runs, one per task; each is read from disk once, when the
/// server starts, and every session's task instance is made from those bytes.
public struct ServerModels: Sendable {
    /// `gesture_recognizer.task` (for `gesture`).
    public var gestureRecognizer: String
    /// `hand_landmarker.task` (for `hands`).
    public var handLandmarker: String
    /// `pose_landmarker_full.task` (for `pose`).
    public var poseLandmarker: String

    /// The bundles at these paths.
    public init(gestureRecognizer: String, handLandmarker: String, poseLandmarker: String) {
        self.gestureRecognizer = gestureRecognizer
        self.handLandmarker = handLandmarker
        self.poseLandmarker = poseLandmarker
    }

    /// The bundles of the model store (`ModelStore`, installed with `vision-tasks models install`).
    public init(store: ModelStore) {
        self.init(
            gestureRecognizer: store.path(for: .gestureRecognizerBundle).path,
            handLandmarker: store.path(for: .handLandmarkerBundle).path,
            poseLandmarker: store.path(for: .poseLandmarkerFullBundle).path)
    }
}
