import Foundation

/// The 4×4 row-major matrix MediaPipe's ImageToTensorCalculator outputs (`MATRIX`): it maps a
/// point of the output tensor, normalised to [0, 1], to the input image, normalised to
/// [0, 1] (MediaPipe's `GetRotatedSubRectToRectTransformMatrix`). z is scaled like x.
package struct ProjectionMatrix: Sendable, Hashable {
    /// The 16 row-major values, inline (a matrix per crop allocates nothing).
    private var m: SIMD16<Float>

    /// Row-major values.
    package var values: [Float] {
        get { (0..<16).map { m[$0] } }
        set {
            for i in 0..<min(16, newValue.count) { m[i] = newValue[i] }
        }
    }

    /// A matrix from 16 row-major values; nil for any other count.
    package init?(values: [Float]) {
        guard values.count == 16 else { return nil }
        m = SIMD16<Float>(values)
    }

    /// The matrix for a crop of `roi` (pixels) out of an image of the given size, optionally
    /// flipped horizontally.
    package init(roi: RotatedRect, imageWidth: Int, imageHeight: Int, flipHorizontally: Bool = false) {
        let a = roi.width
        let b = roi.height
        let flip: Float = flipHorizontally ? -1 : 1
        let c = cosf(roi.rotation)
        let d = sinf(roi.rotation)
        let e = roi.centerX
        let f = roi.centerY
        let g = 1.0 / Float(imageWidth)
        let h = 1.0 / Float(imageHeight)
        var m = SIMD16<Float>(repeating: 0)
        m[0] = a * c * flip * g
        m[1] = -b * d * g
        m[2] = 0
        m[3] = (-0.5 * a * c * flip + 0.5 * b * d + e) * g
        m[4] = a * d * flip * h
        m[5] = b * c * h
        m[6] = 0
        m[7] = (-0.5 * b * c - 0.5 * a * d * flip + f) * h
        m[10] = a * g
        m[15] = 1
        self.m = m
    }

    /// (x, y) → (x·m0 + y·m1 + m3, x·m4 + y·m5 + m7), as DetectionProjectionCalculator.
    @inline(__always)
    package func projectXY(_ x: Float, _ y: Float) -> (x: Float, y: Float) {
        (x * m[0] + y * m[1] + m[3], x * m[4] + y * m[5] + m[7])
    }

    /// (x, y, z) → x and y with the z column included, as LandmarkProjectionCalculator's
    /// `ProjectXY`.
    @inline(__always)
    package func projectXYZ(_ x: Float, _ y: Float, _ z: Float) -> (x: Float, y: Float) {
        (
            x * m[0] + y * m[1] + z * m[2] + m[3],
            x * m[4] + y * m[5] + z * m[6] + m[7]
        )
    }

    /// The length of the projected unit x segment: the factor LandmarkProjectionCalculator
    /// applies to z (computed in double, as `std::pow(float, 2)` promotes).
    package var zScale: Float {
        let a = projectXYZ(0, 0, 0)
        let b = projectXYZ(1, 0, 0)
        let dx = Double(b.x - a.x), dy = Double(b.y - a.y)
        return Float((dx * dx + dy * dy).squareRoot())
    }

    /// The inverse (image → tensor), in double precision, or nil when singular.
    package func inverted() -> ProjectionMatrix? {
        let m = (0..<16).map { Double(self.m[$0]) }
        var inv = [Double](repeating: 0, count: 16)
        // Cofactor expansion of a 4×4 matrix.
        inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] + m[13] * m[6] * m[11] - m[13] * m[7] * m[10]
        inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] - m[12] * m[6] * m[11] + m[12] * m[7] * m[10]
        inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] + m[12] * m[5] * m[11] - m[12] * m[7] * m[9]
        inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] - m[12] * m[5] * m[10] + m[12] * m[6] * m[9]
        inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] - m[13] * m[2] * m[11] + m[13] * m[3] * m[10]
        inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] + m[12] * m[2] * m[11] - m[12] * m[3] * m[10]
        inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] - m[12] * m[1] * m[11] + m[12] * m[3] * m[9]
        inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] + m[12] * m[1] * m[10] - m[12] * m[2] * m[9]
        inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] + m[13] * m[2] * m[7] - m[13] * m[3] * m[6]
        inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] - m[12] * m[2] * m[7] + m[12] * m[3] * m[6]
        inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] + m[12] * m[1] * m[7] - m[12] * m[3] * m[5]
        inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] - m[12] * m[1] * m[6] + m[12] * m[2] * m[5]
        inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] - m[9] * m[2] * m[7] + m[9] * m[3] * m[6]
        inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] + m[8] * m[2] * m[7] - m[8] * m[3] * m[6]
        inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] - m[8] * m[1] * m[7] + m[8] * m[3] * m[5]
        inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] + m[8] * m[1] * m[6] - m[8] * m[2] * m[5]
        let det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12]
        guard det.isFinite, abs(det) > Double.ulpOfOne else { return nil }
        return ProjectionMatrix(values: inv.map { Float($0 / det) })
    }
}

/// Letterbox padding of a tensor, as fractions of its width and height on each side
/// (MediaPipe's `LETTERBOX_PADDING`: left, top, right, bottom). Non-zero only with
/// keep-aspect-ratio preprocessing.
package struct LetterboxPadding: Sendable, Hashable {
    package var left: Float
    package var top: Float
    package var right: Float
    package var bottom: Float

    package init(left: Float, top: Float, right: Float, bottom: Float) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    package static let zero = LetterboxPadding(left: 0, top: 0, right: 0, bottom: 0)
}
