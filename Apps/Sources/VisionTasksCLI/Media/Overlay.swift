import MediaIO
import VisionTasks

/// A drawing description in pixel coordinates of the upright image, rendered by
/// `AnnotationRenderer`: points, lines between points, and text labels.
struct Overlay: Sendable {
    struct Point: Sendable {
        var x: Float
        var y: Float
        var radius: Float = 3
        var color: RGBColor = .red
    }

    struct Line: Sendable {
        var from: (x: Float, y: Float)
        var to: (x: Float, y: Float)
        var width: Float = 2
        var color: RGBColor = .white
    }

    struct Label: Sendable {
        var text: String
        var x: Int
        var y: Int
        var color: RGBColor = .white
        /// How many times the image's usual text size (3: a count read from across the room).
        var size: Int = 1
    }

    var points: [Point] = []
    var lines: [Line] = []
    var labels: [Label] = []

    mutating func append(_ other: Overlay) {
        points += other.points
        lines += other.lines
        labels += other.labels
    }

    /// Landmarks (normalised x, y in 0...1 of the upright image) with their connections and a
    /// label above the topmost point: the hand or pose skeletons MediaPipe's samples draw.
    static func skeleton(
        normalizedPoints: [(x: Float, y: Float)], connections: [(Int, Int)], imageWidth: Int, imageHeight: Int,
        label: String? = nil, pointColor: RGBColor = .red, lineColor: RGBColor = .green
    ) -> Overlay {
        var overlay = Overlay()
        let scale = Float(max(imageWidth, imageHeight))
        let thickness = max(2, scale / 320)
        let pixels = normalizedPoints.map { (x: $0.x * Float(imageWidth), y: $0.y * Float(imageHeight)) }
        for (a, b) in connections where a < pixels.count && b < pixels.count {
            overlay.lines.append(Line(from: pixels[a], to: pixels[b], width: thickness, color: lineColor))
        }
        for p in pixels {
            overlay.points.append(Point(x: p.x, y: p.y, radius: thickness * 1.6, color: pointColor))
        }
        if let label, let top = pixels.min(by: { $0.y < $1.y }), let left = pixels.map(\.x).min() {
            let textScale = max(1, Int(scale / 400))
            let height = 7 * textScale
            overlay.labels.append(Label(text: label, x: Int(left), y: max(Int(top.y) - height - 3 * textScale, textScale)))
        }
        return overlay
    }
}

/// Landmark connection lists of MediaPipe's hand (21 points) and pose (33 points) models.
enum LandmarkConnections {
    /// Wrist 0; thumb 1-4, index 5-8, middle 9-12, ring 13-16, pinky 17-20; palm links.
    static let hand: [(Int, Int)] = HandLandmarker.handConnections.map { ($0.start, $0.end) }

    /// Face 0-10, shoulders 11-12, arms and hands 13-22, hips 23-24, legs and feet 25-32.
    static let pose: [(Int, Int)] = PoseLandmarker.poseLandmarks.map { ($0.start, $0.end) }
}

/// Renders an `Overlay` onto an image with `Canvas`.
enum AnnotationRenderer {
    static func render(_ overlay: Overlay, on image: PixelBuffer) -> PixelBuffer {
        var canvas = Canvas(image: image)
        for line in overlay.lines { canvas.drawLine(from: line.from, to: line.to, width: line.width, color: line.color) }
        for point in overlay.points { canvas.fillCircle(x: point.x, y: point.y, radius: point.radius, color: point.color) }
        let textScale = max(1, max(image.width, image.height) / 400)
        for label in overlay.labels {
            // As large as asked, but no larger than the width left of the image fits.
            let fits = (image.width - label.x - 2) / max(1, Canvas.textSize(label.text, scale: 1).width)
            let scale = max(1, min(textScale * label.size, fits))
            canvas.drawText(label.text, x: label.x, y: label.y, scale: scale, color: label.color)
        }
        return canvas.image
    }
}
