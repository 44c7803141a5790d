import Foundation

/// Angle helpers with MediaPipe's exact arithmetic.
package enum Angle {
    /// Wraps an angle into [-π, π), as MediaPipe's `NormalizeRadians`:
    /// `angle - 2π · floor((angle + π) / 2π)`, evaluated in double and rounded to float.
    @inline(__always)
    package static func normalizeRadians(_ angle: Float) -> Float {
        let a = Double(angle)
        return Float(a - 2 * Double.pi * (((a - (-Double.pi)) / (2 * Double.pi)).rounded(.down)))
    }

    /// The rotation that turns the vector from (x0, y0) to (x1, y1) (pixels, y down) to point
    /// along `targetAngle` (radians): `normalize(target - atan2(-(y1 - y0), x1 - x0))`,
    /// as DetectionsToRectsCalculator and HandLandmarksToRectCalculator compute it.
    @inline(__always)
    package static func rotation(
        from x0: Float, _ y0: Float, to x1: Float, _ y1: Float, targetAngle: Float
    ) -> Float {
        normalizeRadians(targetAngle - atan2f(-(y1 - y0), x1 - x0))
    }
}
