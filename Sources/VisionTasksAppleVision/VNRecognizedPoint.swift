import Foundation

/// A point's key in an observation (Vision's `VNRecognizedPointKey`).
public struct VNRecognizedPointKey: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The key's string.
    public let rawValue: String
    /// A key from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The key's string.
    public var description: String { rawValue }
}

/// A group's key in an observation (Vision's `VNRecognizedPointGroupKey`).
public struct VNRecognizedPointGroupKey: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The key's string.
    public let rawValue: String
    /// A key from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The key's string.
    public var description: String { rawValue }
}

/// A recognised joint, as Vision's `VNRecognizedPoint` (with what `VNPoint` and
/// `VNDetectedPoint` add): where it is and how much to trust it.
///
/// `location` is normalised to the orientation-corrected image, origin at the LOWER left
/// (y up), as in Vision: `VNImagePointForNormalizedPoint` turns it into pixels, and
/// `CGPoint(x: p.x, y: 1 - p.y)` into a top-left origin.
public final class VNRecognizedPoint: Sendable, CustomStringConvertible {
    /// The joint's key (`JointName.rawValue`).
    public let identifier: VNRecognizedPointKey
    /// Normalised position, origin at the lower left.
    public let location: CGPoint
    /// How much to trust the point, 0...1 (docs/apple-vision.md says what it holds).
    public let confidence: Float

    /// A point from its parts.
    public init(identifier: VNRecognizedPointKey, location: CGPoint, confidence: Float) {
        self.identifier = identifier
        self.location = location
        self.confidence = confidence
    }

    /// `location.x`.
    public var x: Double { Double(location.x) }
    /// `location.y` (up from the bottom edge).
    public var y: Double { Double(location.y) }

    /// "identifier (x, y) confidence".
    public var description: String { "\(identifier) (\(x), \(y)) \(confidence)" }
}

/// Pixel coordinates of a normalised point in an image of `imageWidth` × `imageHeight`
/// (Vision's function; both keep the lower-left origin).
public func VNImagePointForNormalizedPoint(_ normalizedPoint: CGPoint, _ imageWidth: Int, _ imageHeight: Int) -> CGPoint {
    CGPoint(x: normalizedPoint.x * CGFloat(imageWidth), y: normalizedPoint.y * CGFloat(imageHeight))
}

/// Normalised coordinates of a pixel point in an image of `imageWidth` × `imageHeight`
/// (Vision's function; the inverse of `VNImagePointForNormalizedPoint`). A zero dimension
/// gives 0 on that axis.
public func VNNormalizedPointForImagePoint(_ imagePoint: CGPoint, _ imageWidth: Int, _ imageHeight: Int) -> CGPoint {
    CGPoint(
        x: imageWidth > 0 ? imagePoint.x / CGFloat(imageWidth) : 0,
        y: imageHeight > 0 ? imagePoint.y / CGFloat(imageHeight) : 0)
}
