/// A rotated rectangle in normalised image coordinates, as MediaPipe's `NormalizedRect`:
/// the centre and size are fractions of the image width and height, `rotation` is in radians
/// (clockwise in image coordinates, where y points down), about the centre.
///
/// Regions of interest travel between the stages as this type: the detector turns each
/// detection into one, the landmark model crops it, and the landmarks produce the region for
/// the next frame.
package struct NormalizedRect: Sendable, Hashable {
    package var xCenter: Float
    package var yCenter: Float
    package var width: Float
    package var height: Float
    /// Radians.
    package var rotation: Float
    /// Set by the tracker's association step, as MediaPipe's `rect_id`.
    package var rectID: Int64?

    package init(
        xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float = 0,
        rectID: Int64? = nil
    ) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
        self.rotation = rotation
        self.rectID = rectID
    }

    /// The whole image, unrotated (MediaPipe's default region: centre 0.5, size 1).
    package static let fullImage = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)

    /// MediaPipe's sentinel for "no region" (all zero), which ImageToTensorCalculator skips.
    package var isEmptySentinel: Bool { width == 0 && height == 0 }
}
