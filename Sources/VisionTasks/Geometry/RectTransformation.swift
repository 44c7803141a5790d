import Foundation

/// Enlarges, shifts, squares and rotates a region, as MediaPipe's
/// RectTransformationCalculator does on normalised rectangles.
///
/// The shift is in units of the rectangle's own size along its own (rotated) axes; squaring
/// uses the long or short side measured in pixels; scaling happens last.
package struct RectTransformation: Sendable, Hashable {
    package var scaleX: Float = 1
    package var scaleY: Float = 1
    /// Extra rotation in radians that turns the shift direction (nil: none). MediaPipe does not
    /// write it back into the rectangle, and neither do we.
    package var rotation: Float?
    package var shiftX: Float = 0
    package var shiftY: Float = 0
    package var squareLong = false
    package var squareShort = false

    package init(
        scaleX: Float = 1, scaleY: Float = 1, rotation: Float? = nil, shiftX: Float = 0,
        shiftY: Float = 0, squareLong: Bool = false, squareShort: Bool = false
    ) {
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.rotation = rotation
        self.shiftX = shiftX
        self.shiftY = shiftY
        self.squareLong = squareLong
        self.squareShort = squareShort
    }

    /// Palm rect → hand rect (hand_detector_graph.cc): ×2.6, shift y −0.5, square long side.
    package static let palmToHand = RectTransformation(
        scaleX: 2.6, scaleY: 2.6, shiftY: -0.5, squareLong: true)
    /// Hand landmarks rect → next frame's hand rect (hand_landmarks_detector_graph.cc):
    /// ×2, shift y −0.1, square long side.
    package static let handLandmarksToNextFrame = RectTransformation(
        scaleX: 2, scaleY: 2, shiftY: -0.1, squareLong: true)
    /// Pose alignment rect → crop (pose_detector_graph.cc and pose_landmarks_detector_graph.cc):
    /// ×1.25, square long side.
    package static let poseAlignment = RectTransformation(
        scaleX: 1.25, scaleY: 1.25, squareLong: true)

    /// Applies the transformation (MediaPipe's `TransformNormalizedRect`).
    package func apply(to rect: NormalizedRect, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        var out = rect
        var width = rect.width
        var height = rect.height
        var rotation = rect.rotation
        if let extra = self.rotation {
            rotation = Angle.normalizeRadians(rotation + extra)
        }
        let iw = Float(imageWidth), ih = Float(imageHeight)
        if rotation == 0 {
            out.xCenter = rect.xCenter + width * shiftX
            out.yCenter = rect.yCenter + height * shiftY
        } else {
            let c = cosf(rotation), s = sinf(rotation)
            let xShift = (iw * width * shiftX * c - ih * height * shiftY * s) / iw
            let yShift = (iw * width * shiftX * s + ih * height * shiftY * c) / ih
            out.xCenter = rect.xCenter + xShift
            out.yCenter = rect.yCenter + yShift
        }
        if squareLong {
            let longSide = max(width * iw, height * ih)
            width = longSide / iw
            height = longSide / ih
        } else if squareShort {
            let shortSide = min(width * iw, height * ih)
            width = shortSide / iw
            height = shortSide / ih
        }
        out.width = width * scaleX
        out.height = height * scaleY
        // As in MediaPipe, the extra rotation only turns the shift; the rectangle's own
        // rotation is left unchanged.
        return out
    }
}
