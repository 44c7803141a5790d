import Foundation

/// The 3×3 matrices OpenCV computes on the way to `cv::warpPerspective`, with its exact
/// arithmetic (MediaPipe's ImageToTensorOpenCvConverter calls `cv::boxPoints`,
/// `cv::getPerspectiveTransform` and `cv::warpPerspective`, which inverts the matrix).
/// The inverse is what the warp kernel evaluates per pixel, so every bit of it matters:
/// a 1-ulp difference can move a source coordinate across a 1/32-pixel rounding boundary.
package enum PerspectiveTransform {
    /// Four points, in the order the functions here take and give them.
    package typealias Quad = (
        (x: Float, y: Float), (x: Float, y: Float), (x: Float, y: Float), (x: Float, y: Float)
    )

    /// The 4 corners of a rotated rectangle, as `cv::RotatedRect::points`: bottom-left,
    /// top-left, top-right, bottom-right for an unrotated rectangle (y down).
    /// `angleDegrees` is OpenCV's float angle.
    package static func boxPoints(
        centerX: Float, centerY: Float, width: Float, height: Float, angleDegrees: Float
    ) -> [(x: Float, y: Float)] {
        let q = corners(centerX: centerX, centerY: centerY, width: width, height: height, angleDegrees: angleDegrees)
        return [q.0, q.1, q.2, q.3]
    }

    /// `boxPoints` without an array.
    static func corners(
        centerX: Float, centerY: Float, width: Float, height: Float, angleDegrees: Float
    ) -> Quad {
        let angle = Double(angleDegrees) * Double.pi / 180.0
        let b = Float(cos(angle)) * 0.5
        let a = Float(sin(angle)) * 0.5
        let p0 = (x: centerX - a * height - b * width, y: centerY + b * height - a * width)
        let p1 = (x: centerX + a * height - b * width, y: centerY - b * height - a * width)
        let p2 = (x: 2 * centerX - p0.x, y: 2 * centerY - p0.y)
        let p3 = (x: 2 * centerX - p1.x, y: 2 * centerY - p1.y)
        return (p0, p1, p2, p3)
    }

    /// `cv::getPerspectiveTransform(src, dst, DECOMP_LU)`: the matrix mapping the 4 source
    /// points to the 4 destination points (row-major, m[8] = 1), from an 8×8 linear system.
    ///
    /// OpenCV hands DECOMP_LU systems to LAPACK when it is built with it, as MediaPipe's and
    /// the PyPI builds are (`lapack_LU64f` → `dgesv`), so the system is solved here the way
    /// reference LAPACK's `dgesv` does (see `solveLikeLAPACK`). This matters: for crops whose
    /// scale puts source coordinates exactly halfway between two 1/32-pixel steps (the palm
    /// detector's letterbox for images whose long side is ≡ 3 mod 6), the last bit of the
    /// matrix decides the rounding, and OpenCV's own non-LAPACK LU gives visibly different
    /// landmarks there (checked against MediaPipe, see docs/pipelines.md).
    /// Returns nil when the system is singular.
    package static func perspectiveTransform(
        from src: [(x: Float, y: Float)], to dst: [(x: Float, y: Float)]
    ) -> [Double]? {
        guard src.count == 4, dst.count == 4 else { return nil }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 9) { m -> [Double]? in
            guard let out = m.baseAddress,
                perspectiveTransform(from: (src[0], src[1], src[2], src[3]), to: (dst[0], dst[1], dst[2], dst[3]), into: out)
            else { return nil }
            return Array(m)
        }
    }

    /// The same into `matrix` (9 doubles), without allocating; false when singular.
    static func perspectiveTransform(from src: Quad, to dst: Quad, into matrix: UnsafeMutablePointer<Double>) -> Bool {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 64) { system -> Bool in
            guard let a = system.baseAddress else { return false }
            a.initialize(repeating: 0, count: 64)
            let b = matrix
            b.initialize(repeating: 0, count: 9)
            func set(_ i: Int, _ p: (x: Float, y: Float), _ q: (x: Float, y: Float)) {
                a[i * 8 + 0] = Double(p.x)
                a[(i + 4) * 8 + 3] = Double(p.x)
                a[i * 8 + 1] = Double(p.y)
                a[(i + 4) * 8 + 4] = Double(p.y)
                a[i * 8 + 2] = 1
                a[(i + 4) * 8 + 5] = 1
                // OpenCV multiplies these in float (Point2f members) before storing them as double.
                a[i * 8 + 6] = Double(-p.x * q.x)
                a[i * 8 + 7] = Double(-p.y * q.x)
                a[(i + 4) * 8 + 6] = Double(-p.x * q.y)
                a[(i + 4) * 8 + 7] = Double(-p.y * q.y)
                b[i] = Double(q.x)
                b[i + 4] = Double(q.y)
            }
            set(0, src.0, dst.0)
            set(1, src.1, dst.1)
            set(2, src.2, dst.2)
            set(3, src.3, dst.3)
            guard solveLikeLAPACK(a, b, n: 8) else { return false }
            b[8] = 1
            return true
        }
    }

    /// Solves A·x = b (A row-major n×n, b receives x) with the operations of reference
    /// LAPACK's `dgesv` for small n: `dgetrf2` (recursive LU with partial pivoting: IDAMAX
    /// pivot, column scaled by the pivot's reciprocal, left half factored, row swaps applied,
    /// `dtrsm` for the top right block, `dgemm` rank updates one column of the left block at a
    /// time, right half factored), then `dgetrs` (row swaps, unit-lower forward substitution,
    /// upper backward substitution dividing by the diagonal). Returns false when a pivot is 0.
    /// Works in place, on the stack (n is at most 64).
    static func solveLikeLAPACK(_ a: UnsafeMutablePointer<Double>, _ b: UnsafeMutablePointer<Double>, n: Int) -> Bool {
        guard n >= 1, n <= 64 else { return false }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { buffer -> Bool in
            guard let pivots = buffer.baseAddress else { return false }
            pivots.initialize(repeating: 0, count: n)
            guard factorLikeDGETRF2(a, n: n, row: 0, col: 0, rows: n, cols: n, pivots: pivots) else {
                return false
            }
            for i in 0..<n where pivots[i] != i { swap(b + i, b + pivots[i]) }
            for k in 0..<n where b[k] != 0 {
                for i in (k + 1)..<max(k + 1, n) { b[i] = b[i] - b[k] * a[i * n + k] }
            }
            for k in stride(from: n - 1, through: 0, by: -1) where b[k] != 0 {
                b[k] = b[k] / a[k * n + k]
                for i in 0..<k { b[i] = b[i] - b[k] * a[i * n + k] }
            }
            return true
        }
    }

    @inline(__always)
    private static func swap(_ x: UnsafeMutablePointer<Double>, _ y: UnsafeMutablePointer<Double>) {
        let t = x.pointee
        x.pointee = y.pointee
        y.pointee = t
    }

    /// `dgetrf2` on the block of `rows` × `cols` at (row, col) of the n×n matrix `a`.
    /// `pivots` (rows of the block) receives, per block column, the block row swapped in.
    private static func factorLikeDGETRF2(
        _ a: UnsafeMutablePointer<Double>, n: Int, row r0: Int, col c0: Int, rows m: Int, cols nc: Int,
        pivots: UnsafeMutablePointer<Int>
    ) -> Bool {
        @inline(__always) func at(_ r: Int, _ c: Int) -> Int { (r0 + r) * n + (c0 + c) }
        if nc == 1 {
            var p = 0
            for i in 1..<max(1, m) where abs(a[at(i, 0)]) > abs(a[at(p, 0)]) { p = i }
            pivots[0] = p
            guard a[at(p, 0)] != 0 else { return false }
            if p != 0 { swap(a + at(0, 0), a + at(p, 0)) }
            if abs(a[at(0, 0)]) >= Double.leastNormalMagnitude {
                let reciprocal = 1.0 / a[at(0, 0)]
                for i in 1..<max(1, m) { a[at(i, 0)] = a[at(i, 0)] * reciprocal }
            } else {
                for i in 1..<max(1, m) { a[at(i, 0)] = a[at(i, 0)] / a[at(0, 0)] }
            }
            return true
        }
        if m == 1 {
            pivots[0] = 0
            return a[at(0, 0)] != 0
        }
        let n1 = min(m, nc) / 2
        let n2 = nc - n1
        // The left half's pivots go straight into the first n1 entries of `pivots`.
        guard factorLikeDGETRF2(a, n: n, row: r0, col: c0, rows: m, cols: n1, pivots: pivots) else {
            return false
        }
        for i in 0..<n1 where pivots[i] != i {
            for c in n1..<nc { swap(a + at(i, c), a + at(pivots[i], c)) }
        }
        // A12 ← L11⁻¹·A12 (unit lower, column by column).
        for j in 0..<n2 {
            for k in 0..<n1 {
                let bk = a[at(k, n1 + j)]
                if bk == 0 { continue }
                for i in (k + 1)..<max(k + 1, n1) {
                    a[at(i, n1 + j)] = a[at(i, n1 + j)] - bk * a[at(i, k)]
                }
            }
        }
        // A22 ← A22 − A21·A12, one column of A21 at a time.
        for j in 0..<n2 {
            for l in 0..<n1 {
                let temp = -a[at(l, n1 + j)]
                for i in 0..<(m - n1) {
                    a[at(n1 + i, n1 + j)] = a[at(n1 + i, n1 + j)] + temp * a[at(n1 + i, l)]
                }
            }
        }
        // The right half's pivots are relative to its first row; stored shifted by n1 below.
        let right = pivots + n1
        guard
            factorLikeDGETRF2(a, n: n, row: r0 + n1, col: c0 + n1, rows: m - n1, cols: n2, pivots: right)
        else { return false }
        for i in 0..<min(m - n1, n2) {
            let p = right[i] + n1
            right[i] = p
            if p != n1 + i {
                for c in 0..<n1 { swap(a + at(n1 + i, c), a + at(p, c)) }
            }
        }
        return true
    }

    /// `cv::invert(m, DECOMP_LU)` for a 3×3 double matrix: the adjugate over the determinant
    /// (OpenCV's closed form for n = 3). Nil when the determinant is 0.
    package static func invert3x3(_ m: [Double]) -> [Double]? {
        guard m.count == 9 else { return nil }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 9) { out -> [Double]? in
            guard let o = out.baseAddress, m.withUnsafeBufferPointer({ invert3x3($0.baseAddress!, into: o) }) else {
                return nil
            }
            return Array(out)
        }
    }

    /// The same into `out` (9 doubles, may not alias `m`); false when the determinant is 0.
    static func invert3x3(_ m: UnsafePointer<Double>, into out: UnsafeMutablePointer<Double>) -> Bool {
        func s(_ r: Int, _ c: Int) -> Double { m[r * 3 + c] }
        let det =
            s(0, 0) * (s(1, 1) * s(2, 2) - s(1, 2) * s(2, 1))
            - s(0, 1) * (s(1, 0) * s(2, 2) - s(1, 2) * s(2, 0))
            + s(0, 2) * (s(1, 0) * s(2, 1) - s(1, 1) * s(2, 0))
        guard det != 0 else { return false }
        let d = 1.0 / det
        out[0] = (s(1, 1) * s(2, 2) - s(1, 2) * s(2, 1)) * d
        out[1] = (s(0, 2) * s(2, 1) - s(0, 1) * s(2, 2)) * d
        out[2] = (s(0, 1) * s(1, 2) - s(0, 2) * s(1, 1)) * d
        out[3] = (s(1, 2) * s(2, 0) - s(1, 0) * s(2, 2)) * d
        out[4] = (s(0, 0) * s(2, 2) - s(0, 2) * s(2, 0)) * d
        out[5] = (s(0, 2) * s(1, 0) - s(0, 0) * s(1, 2)) * d
        out[6] = (s(1, 0) * s(2, 1) - s(1, 1) * s(2, 0)) * d
        out[7] = (s(0, 1) * s(2, 0) - s(0, 0) * s(2, 1)) * d
        out[8] = (s(0, 0) * s(1, 1) - s(0, 1) * s(1, 0)) * d
        return true
    }

    /// The destination → source matrix the warp evaluates for cropping `roi` (pixels) into an
    /// output of `outputWidth` × `outputHeight`, as ImageToTensorOpenCvConverter sets it up:
    /// the rect's corners map to (0, H), (0, 0), (W, 0), (W, H).
    package static func cropMatrix(roi: RotatedRect, outputWidth: Int, outputHeight: Int) -> [Double]? {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 9) { out -> [Double]? in
            guard let o = out.baseAddress, cropMatrix(roi: roi, outputWidth: outputWidth, outputHeight: outputHeight, into: o)
            else { return nil }
            return Array(out)
        }
    }

    /// The same into `inverse` (9 doubles), without allocating; false when degenerate.
    static func cropMatrix(
        roi: RotatedRect, outputWidth: Int, outputHeight: Int, into inverse: UnsafeMutablePointer<Double>
    ) -> Bool {
        // RotatedRect's float angle from `roi.rotation * 180.f / M_PI`.
        let angle = Float(Double(roi.rotation * 180) / Double.pi)
        let src = corners(
            centerX: roi.centerX, centerY: roi.centerY, width: roi.width, height: roi.height,
            angleDegrees: angle)
        let w = Float(outputWidth), h = Float(outputHeight)
        let dst: Quad = ((0, h), (0, 0), (w, 0), (w, h))
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 9) { forward -> Bool in
            guard let f = forward.baseAddress, perspectiveTransform(from: src, to: dst, into: f) else { return false }
            return invert3x3(UnsafePointer(f), into: inverse)
        }
    }
}
