/// An axis-aligned box with MediaPipe's `Rectangle_f` semantics: edges belong to the box,
/// a box with min > max is empty, and the area is (xmax − xmin)·(ymax − ymin) in float.
package struct AxisAlignedBox: Sendable, Hashable {
    package var xmin: Float
    package var ymin: Float
    package var xmax: Float
    package var ymax: Float

    package init(xmin: Float, ymin: Float, xmax: Float, ymax: Float) {
        self.xmin = xmin
        self.ymin = ymin
        self.xmax = xmax
        self.ymax = ymax
    }

    /// The box of a rectangle given by its min corner and size (`Rectangle_f(x, y, w, h)`).
    package init(x: Float, y: Float, width: Float, height: Float) {
        self.init(xmin: x, ymin: y, xmax: x + width, ymax: y + height)
    }

    /// The unrotated box a normalised rectangle covers, as MediaPipe's association and
    /// `ToRectangle` compute it: the rotation is ignored, and the min corner is
    /// `center − size / 2.0` evaluated in double.
    package init(_ rect: NormalizedRect) {
        let x = Float(Double(rect.xCenter) - Double(rect.width) / 2.0)
        let y = Float(Double(rect.yCenter) - Double(rect.height) / 2.0)
        self.init(x: x, y: y, width: rect.width, height: rect.height)
    }

    package var isEmpty: Bool { xmin > xmax || ymin > ymax }
    package var width: Float { xmax - xmin }
    package var height: Float { ymax - ymin }
    package var area: Float { width * height }

    /// Whether the boxes share at least one point (touching edges count).
    package func intersects(_ other: AxisAlignedBox) -> Bool {
        !(isEmpty || other.isEmpty || other.xmax < xmin || xmax < other.xmin
            || other.ymax < ymin || ymax < other.ymin)
    }

    /// The overlap; only meaningful when `intersects` is true.
    package func intersection(_ other: AxisAlignedBox) -> AxisAlignedBox {
        AxisAlignedBox(
            xmin: max(xmin, other.xmin), ymin: max(ymin, other.ymin),
            xmax: min(xmax, other.xmax), ymax: min(ymax, other.ymax))
    }

    /// The smallest box holding both.
    package func union(_ other: AxisAlignedBox) -> AxisAlignedBox {
        AxisAlignedBox(
            xmin: min(xmin, other.xmin), ymin: min(ymin, other.ymin),
            xmax: max(xmax, other.xmax), ymax: max(ymax, other.ymax))
    }

    /// Intersection over union as MediaPipe's `CalculateIou` (rectangle_util.cc) and the
    /// non-max suppression's INTERSECTION_OVER_UNION: 0 when the boxes do not touch or the
    /// union is not positive.
    package func intersectionOverUnion(_ other: AxisAlignedBox) -> Float {
        guard intersects(other) else { return 0 }
        let inter = intersection(other).area
        let normalization = area + other.area - inter
        return normalization > 0 ? inter / normalization : 0
    }
}
