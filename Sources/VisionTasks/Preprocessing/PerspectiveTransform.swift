import Foundation

/// The 3×3 matrices OpenCV computes on the way to `cv::warpPerspective`, with its exact
/// arithmetic (MediaPipe's ImageToTensorOpenCvConverter calls `cv::boxPoints`,
/// `cv::getPerspectiveTransform` and `cv::warpPerspective`, which inverts the matrix).
/// The inverse is what the warp kernel evaluates per pixel, so every bit of it matters:
/// a 1-ulp difference can move a source coordinate across a 1/32-pixel rounding boundary.
package enum PerspectiveTransform {
    /// The 4 corners of a rotated rectangle, as `cv::RotatedRect::points`: bottom-left,
    /// top-left, top-right, bottom-right for an unrotated rectangle (y down).
    /// `angleDegrees` is OpenCV's float angle.
    package static func boxPoints(
        centerX: Float, centerY: Float, width: Float, height: Float, angleDegrees: Float
    ) -> [(x: Float, y: Float)] {
        let angle = Double(angleDegrees) * Double.pi / 180.0
        let b = Float(cos(angle)) * 0.5
        let a = Float(sin(angle)) * 0.5
        let p0 = (x: centerX - a * height - b * width, y: centerY + b * height - a * width)
        let p1 = (x: centerX + a * height - b * width, y: centerY - b * height - a * width)
        let p2 = (x: 2 * centerX - p0.x, y: 2 * centerY - p0.y)
        let p3 = (x: 2 * centerX - p1.x, y: 2 * centerY - p1.y)
        return [p0, p1, p2, p3]
    }

    /// `cv::getPerspectiveTransform(src, dst, DECOMP_LU)`: the matrix mapping the 4 source
    /// points to the 4 destination points (row-major, m[8] = 1), from an 8×8 system solved by
    /// Gaussian elimination with partial pivoting. Returns nil when the system is singular
    /// (OpenCV ≥ 4.11 then falls back to an SVD solution, not reproduced here).
    package static func perspectiveTransform(
        from src: [(x: Float, y: Float)], to dst: [(x: Float, y: Float)]
    ) -> [Double]? {
        guard src.count == 4, dst.count == 4 else { return nil }
        var a = [Double](repeating: 0, count: 64)
        var b = [Double](repeating: 0, count: 8)
        for i in 0..<4 {
            a[i * 8 + 0] = Double(src[i].x)
            a[(i + 4) * 8 + 3] = Double(src[i].x)
            a[i * 8 + 1] = Double(src[i].y)
            a[(i + 4) * 8 + 4] = Double(src[i].y)
            a[i * 8 + 2] = 1
            a[(i + 4) * 8 + 5] = 1
            // OpenCV multiplies these in float (Point2f members) before storing them as double.
            a[i * 8 + 6] = Double(-src[i].x * dst[i].x)
            a[i * 8 + 7] = Double(-src[i].y * dst[i].x)
            a[(i + 4) * 8 + 6] = Double(-src[i].x * dst[i].y)
            a[(i + 4) * 8 + 7] = Double(-src[i].y * dst[i].y)
            b[i] = Double(dst[i].x)
            b[i + 4] = Double(dst[i].y)
        }
        guard solveLU(&a, &b, n: 8) else { return nil }
        return b + [1]
    }

    /// OpenCV's `hal::LU64f` (LUImpl<double>, eps = 100·DBL_EPSILON) solving A·x = b in place:
    /// b receives x. Returns false for a singular matrix.
    static func solveLU(_ a: inout [Double], _ b: inout [Double], n: Int) -> Bool {
        let eps = Double.ulpOfOne * 100
        for i in 0..<n {
            var k = i
            for j in (i + 1)..<max(i + 1, n) where abs(a[j * n + i]) > abs(a[k * n + i]) {
                k = j
            }
            if abs(a[k * n + i]) < eps { return false }
            if k != i {
                for j in i..<n { a.swapAt(i * n + j, k * n + j) }
                b.swapAt(i, k)
            }
            let d = -1 / a[i * n + i]
            for j in (i + 1)..<max(i + 1, n) {
                let alpha = a[j * n + i] * d
                for c in (i + 1)..<max(i + 1, n) {
                    a[j * n + c] += alpha * a[i * n + c]
                }
                b[j] += alpha * b[i]
            }
            a[i * n + i] = -d
        }
        for i in stride(from: n - 1, through: 0, by: -1) {
            var s = b[i]
            for c in (i + 1)..<max(i + 1, n) {
                s -= a[i * n + c] * b[c]
            }
            b[i] = s * a[i * n + i]
        }
        return true
    }

    /// `cv::invert(m, DECOMP_LU)` for a 3×3 double matrix: the adjugate over the determinant
    /// (OpenCV's closed form for n = 3). Nil when the determinant is 0.
    package static func invert3x3(_ m: [Double]) -> [Double]? {
        guard m.count == 9 else { return nil }
        func s(_ r: Int, _ c: Int) -> Double { m[r * 3 + c] }
        let det =
            s(0, 0) * (s(1, 1) * s(2, 2) - s(1, 2) * s(2, 1))
            - s(0, 1) * (s(1, 0) * s(2, 2) - s(1, 2) * s(2, 0))
            + s(0, 2) * (s(1, 0) * s(2, 1) - s(1, 1) * s(2, 0))
        guard det != 0 else { return nil }
        let d = 1.0 / det
        return [
            (s(1, 1) * s(2, 2) - s(1, 2) * s(2, 1)) * d,
            (s(0, 2) * s(2, 1) - s(0, 1) * s(2, 2)) * d,
            (s(0, 1) * s(1, 2) - s(0, 2) * s(1, 1)) * d,
            (s(1, 2) * s(2, 0) - s(1, 0) * s(2, 2)) * d,
            (s(0, 0) * s(2, 2) - s(0, 2) * s(2, 0)) * d,
            (s(0, 2) * s(1, 0) - s(0, 0) * s(1, 2)) * d,
            (s(1, 0) * s(2, 1) - s(1, 1) * s(2, 0)) * d,
            (s(0, 1) * s(2, 0) - s(0, 0) * s(2, 1)) * d,
            (s(0, 0) * s(1, 1) - s(0, 1) * s(1, 0)) * d,
        ]
    }

    /// The destination → source matrix the warp evaluates for cropping `roi` (pixels) into an
    /// output of `outputWidth` × `outputHeight`, as ImageToTensorOpenCvConverter sets it up:
    /// the rect's corners map to (0, H), (0, 0), (W, 0), (W, H).
    package static func cropMatrix(roi: RotatedRect, outputWidth: Int, outputHeight: Int) -> [Double]? {
        // RotatedRect's float angle from `roi.rotation * 180.f / M_PI`.
        let angle = Float(Double(roi.rotation * 180) / Double.pi)
        let src = boxPoints(
            centerX: roi.centerX, centerY: roi.centerY, width: roi.width, height: roi.height,
            angleDegrees: angle)
        let w = Float(outputWidth), h = Float(outputHeight)
        let dst: [(x: Float, y: Float)] = [(0, h), (0, 0), (w, 0), (w, h)]
        guard let forward = perspectiveTransform(from: src, to: dst) else { return nil }
        return invert3x3(forward)
    }
}
