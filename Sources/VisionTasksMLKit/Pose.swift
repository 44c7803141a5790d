/// The body pose of one person, as ML Kit's `Pose`: all 33 landmarks.
public final class Pose: Sendable {
    /// The 33 landmarks in `PoseLandmarkType.allCases` order (BlazePose's).
    public let landmarks: [PoseLandmark]

    /// A pose from its 33 landmarks, in `PoseLandmarkType` order.
    init(landmarks: [PoseLandmark]) {
        self.landmarks = landmarks
    }

    /// The landmark of `type` (every pose has all 33).
    public func landmark(ofType type: PoseLandmarkType) -> PoseLandmark {
        landmarks[type.index]
    }
}
