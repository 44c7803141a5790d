/// A landmark in image coordinates: `x` and `y` are normalised to [0, 1] by the image width and
/// height (of the upright image); `z` is depth with roughly the scale of `x`, smaller is nearer
/// the camera (the wrist, or the hips' midpoint, is the origin).
///
/// As MediaPipe's `NormalizedLandmark`; a value type here. `visibility` and `presence` are set by
/// the pose landmarker and `nil` for hands (MediaPipe's are `NSNumber?`).
public struct NormalizedLandmark: Sendable, Hashable, Codable {
    /// Horizontal position, 0 at the left edge and 1 at the right edge of the upright image.
    public var x: Float
    /// Vertical position, 0 at the top and 1 at the bottom of the upright image.
    public var y: Float
    /// Depth relative to the origin landmark, in about the scale of `x`; smaller is nearer the camera.
    public var z: Float
    /// Likelihood that the landmark is visible (not occluded) in the image.
    public var visibility: Float?
    /// Likelihood that the landmark is inside the image frame.
    public var presence: Float?

    /// A landmark from its coordinates (and, for poses, visibility and presence).
    public init(x: Float, y: Float, z: Float, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }
}
