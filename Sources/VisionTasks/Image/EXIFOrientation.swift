/// The orientation codes of the EXIF `Orientation` tag (0x0112): how the stored pixels must be
/// transformed to be displayed upright. Named after the matching `UIImage.Orientation`.
public enum EXIFOrientation: Int, Sendable, CaseIterable, Codable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: rotated 180 degrees.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the main diagonal (transposed).
    case leftMirrored = 5
    /// 6: must be rotated 90 degrees clockwise to display (phone held upright).
    case right = 6
    /// 7: mirrored along the anti-diagonal (transverse).
    case rightMirrored = 7
    /// 8: must be rotated 90 degrees counter-clockwise to display.
    case left = 8

    /// Whether displaying swaps width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// Whether the transformation includes a mirror image.
    public var isMirrored: Bool {
        switch self {
        case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored: return true
        case .up, .down, .left, .right: return false
        }
    }
}
