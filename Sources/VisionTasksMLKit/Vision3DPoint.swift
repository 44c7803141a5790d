import Foundation

/// A point in three dimensions, as ML Kit's `Vision3DPoint`. For pose landmarks: `x` and `y`
/// in pixels of the upright image (origin top left, y down), `z` in the same pixel scale with
/// its origin at the midpoint of the hips, negative towards the camera.
public final class Vision3DPoint: Sendable, CustomStringConvertible {
    /// Horizontal position, pixels from the left edge.
    public let x: CGFloat
    /// Vertical position, pixels from the top edge.
    public let y: CGFloat
    /// Depth, in the scale of `x`; negative is closer to the camera than the hips.
    public let z: CGFloat

    /// A point from its coordinates.
    public init(x: CGFloat, y: CGFloat, z: CGFloat) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// "(x, y, z)".
    public var description: String { "(\(x), \(y), \(z))" }
}
