/// One body landmark of a `Pose`, as ML Kit's `PoseLandmark`.
public final class PoseLandmark: Sendable {
    /// Which landmark this is.
    public let type: PoseLandmarkType
    /// Where it is: pixels of the upright image, `z` in the same scale from the hips' midpoint.
    public let position: Vision3DPoint
    /// The likelihood, 0...1, that the landmark lies inside the image: MediaPipe's landmark
    /// `presence`, the BlazePose output that estimates exactly that (docs/mlkit.md).
    public let inFrameLikelihood: Float

    /// A landmark from its parts.
    public init(type: PoseLandmarkType, position: Vision3DPoint, inFrameLikelihood: Float) {
        self.type = type
        self.position = position
        self.inFrameLikelihood = inFrameLikelihood
    }
}
