/// A landmark in world coordinates: metres, with the origin at the hand's approximate geometric
/// centre (hands) or between the hips (pose).
///
/// As MediaPipe's `Landmark`; a value type here. `visibility` and `presence` are set by the pose
/// landmarker and `nil` for hands.
public struct Landmark: Sendable, Hashable, Codable {
    public var x: Float
    public var y: Float
    public var z: Float
    /// Likelihood that the landmark is visible (not occluded) in the image.
    public var visibility: Float?
    /// Likelihood that the landmark is inside the image frame.
    public var presence: Float?

    public init(x: Float, y: Float, z: Float, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }
}
