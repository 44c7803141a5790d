/// A rotated rectangle in pixels of the (upright) input image, as MediaPipe's `RotatedRect`:
/// the region the image-to-tensor step crops. `rotation` is in radians.
package struct RotatedRect: Sendable, Hashable {
    package var centerX: Float
    package var centerY: Float
    package var width: Float
    package var height: Float
    /// Radians.
    package var rotation: Float

    package init(centerX: Float, centerY: Float, width: Float, height: Float, rotation: Float = 0) {
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.height = height
        self.rotation = rotation
    }

    /// The region a normalised rectangle covers in an image of the given size, or the whole
    /// image when `rect` is nil (MediaPipe's `GetRoi`).
    package init(_ rect: NormalizedRect?, imageWidth: Int, imageHeight: Int) {
        let w = Float(imageWidth), h = Float(imageHeight)
        if let rect {
            self.init(
                centerX: rect.xCenter * w, centerY: rect.yCenter * h,
                width: rect.width * w, height: rect.height * h, rotation: rect.rotation)
        } else {
            self.init(centerX: 0.5 * w, centerY: 0.5 * h, width: w, height: h, rotation: 0)
        }
    }
}
