import VisionTasks

/// An 8-bit RGB colour.
public struct RGBColor: Sendable, Hashable {
    /// Red, 0...255.
    public var red: UInt8
    /// Green, 0...255.
    public var green: UInt8
    /// Blue, 0...255.
    public var blue: UInt8

    /// A colour from its components.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// White.
    public static let white = RGBColor(red: 255, green: 255, blue: 255)
    /// Black.
    public static let black = RGBColor(red: 0, green: 0, blue: 0)
    /// A clear red, for landmarks.
    public static let red = RGBColor(red: 230, green: 40, blue: 40)
    /// A clear green.
    public static let green = RGBColor(red: 40, green: 200, blue: 60)
    /// A clear blue.
    public static let blue = RGBColor(red: 40, green: 90, blue: 230)
    /// A clear yellow.
    public static let yellow = RGBColor(red: 250, green: 210, blue: 30)
}

/// Draws on an RGB8 image: filled circles, lines (anti-aliased or plain) and text labels in a
/// built-in 5x7 bitmap font. Coordinates are in pixels (x right, y down, pixel centres at
/// integer + 0.5); shapes are clipped to the image.
public struct Canvas: Sendable {
    /// The image drawn on (always packed RGB8).
    public private(set) var image: PixelBuffer

    /// Starts drawing on a copy of `image`, converted to packed RGB8.
    public init(image: PixelBuffer) {
        self.image = image.convertedToRGB8().packed()
    }

    /// Blends `color` into pixel (x, y) with `coverage` in 0...1.
    private mutating func blend(_ x: Int, _ y: Int, _ color: RGBColor, _ coverage: Float) {
        guard x >= 0, y >= 0, x < image.width, y < image.height, coverage > 0 else { return }
        let a = min(coverage, 1)
        let i = y * image.bytesPerRow + x * 3
        func mix(_ old: UInt8, _ new: UInt8) -> UInt8 {
            UInt8(max(0, min(255, (Float(old) * (1 - a) + Float(new) * a).rounded())))
        }
        image.bytes[i] = mix(image.bytes[i], color.red)
        image.bytes[i + 1] = mix(image.bytes[i + 1], color.green)
        image.bytes[i + 2] = mix(image.bytes[i + 2], color.blue)
    }

    /// A filled disc of `radius` pixels centred on (x, y), with a soft edge when `antialiased`.
    public mutating func fillCircle(x: Float, y: Float, radius: Float, color: RGBColor, antialiased: Bool = true) {
        guard x.isFinite, y.isFinite, radius.isFinite, radius > 0 else { return }
        guard abs(x) < 1e6, abs(y) < 1e6, radius < 1e5 else { return }
        let x0 = Int((x - radius - 1).rounded(.down)), x1 = Int((x + radius + 1).rounded(.up))
        let y0 = Int((y - radius - 1).rounded(.down)), y1 = Int((y + radius + 1).rounded(.up))
        let lowX = max(x0, 0), highX = min(x1, image.width - 1)
        let lowY = max(y0, 0), highY = min(y1, image.height - 1)
        guard lowX <= highX, lowY <= highY else { return }
        for py in lowY...highY {
            for px in lowX...highX {
                let dx = Float(px) + 0.5 - x, dy = Float(py) + 0.5 - y
                let distance = (dx * dx + dy * dy).squareRoot()
                let coverage: Float = antialiased ? radius + 0.5 - distance : (distance <= radius ? 1 : 0)
                blend(px, py, color, coverage)
            }
        }
    }

    /// A line segment `width` pixels thick from (x0, y0) to (x1, y1), anti-aliased or plain.
    public mutating func drawLine(
        from start: (x: Float, y: Float), to end: (x: Float, y: Float), width: Float = 2,
        color: RGBColor, antialiased: Bool = true
    ) {
        guard [start.x, start.y, end.x, end.y].allSatisfy({ $0.isFinite && abs($0) < 1e6 }), width > 0, width < 1e4
        else { return }
        let half = width / 2
        let minX = Int((min(start.x, end.x) - half - 1).rounded(.down)), maxX = Int((max(start.x, end.x) + half + 1).rounded(.up))
        let minY = Int((min(start.y, end.y) - half - 1).rounded(.down)), maxY = Int((max(start.y, end.y) + half + 1).rounded(.up))
        let lowX = max(minX, 0), highX = min(maxX, image.width - 1)
        let lowY = max(minY, 0), highY = min(maxY, image.height - 1)
        guard lowX <= highX, lowY <= highY else { return }
        let dx = end.x - start.x, dy = end.y - start.y
        let lengthSquared = dx * dx + dy * dy
        for py in lowY...highY {
            for px in lowX...highX {
                let cx = Float(px) + 0.5, cy = Float(py) + 0.5
                var t: Float = 0
                if lengthSquared > 0 { t = max(0, min(1, ((cx - start.x) * dx + (cy - start.y) * dy) / lengthSquared)) }
                let ex = cx - (start.x + t * dx), ey = cy - (start.y + t * dy)
                let distance = (ex * ex + ey * ey).squareRoot()
                let coverage: Float = antialiased ? half + 0.5 - distance : (distance <= half ? 1 : 0)
                blend(px, py, color, coverage)
            }
        }
    }

    /// Size in pixels of `text` drawn at `scale` (each font pixel a `scale` x `scale` square).
    public static func textSize(_ text: String, scale: Int = 2) -> (width: Int, height: Int) {
        (max(text.count * BitmapFont.advance - 1, 0) * scale, BitmapFont.glyphHeight * scale)
    }

    /// Draws `text` with its top-left corner at (x, y), on a filled `background` box (with a
    /// `scale`-pixel margin) when given.
    public mutating func drawText(
        _ text: String, x: Int, y: Int, scale: Int = 2, color: RGBColor = .white, background: RGBColor? = .black
    ) {
        let s = max(scale, 1)
        let size = Self.textSize(text, scale: s)
        if let background {
            for py in (y - s)..<(y + size.height + s) {
                for px in (x - s)..<(x + size.width + s) { blend(px, py, background, 0.75) }
            }
        }
        for (index, character) in text.enumerated() {
            let rows = BitmapFont.rows(for: character)
            let left = x + index * BitmapFont.advance * s
            for (row, bits) in rows.enumerated() {
                for column in 0..<BitmapFont.glyphWidth where bits & (0x10 >> UInt8(column)) != 0 {
                    for dy in 0..<s {
                        for dx in 0..<s { blend(left + column * s + dx, y + row * s + dy, color, 1) }
                    }
                }
            }
        }
    }
}
