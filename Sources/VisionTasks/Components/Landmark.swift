/// A landmark in world coordinates: metres, with the origin at the hand's approximate geometric
/// centre (hands) or between the hips (pose).
///
/// As MediaPipe's `Landmark`; a value type here. `visibility` and `presence` are set by the pose
/// landmarker and `nil` for hands.
public struct Landmark: Sendable, Hashable, Codable {
    /// Metres to the right of the origin.
    public var x: Float
    /// Metres below the origin (y points down, as in the image).
    public var y: Float
    /// Metres away from the camera, relative to the origin.
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
