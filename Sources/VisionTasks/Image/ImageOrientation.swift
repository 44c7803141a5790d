import MediaIO

/// How an image's stored pixels must be rotated (and mirrored) to appear upright, with the
/// cases and raw values of `UIImage.Orientation`, which MediaPipe's `MPImage` takes.
///
/// `.right` is the usual orientation of a portrait photo from a phone's back camera: the
/// stored image must be turned 90 degrees clockwise to be displayed. Mirrored orientations can
/// be given to `MPImage`, but the vision tasks refuse them with
/// `MPImageError.unsupportedOrientation`, as MediaPipe's tasks do.
public enum ImageOrientation: Int, Sendable, CaseIterable, CustomStringConvertible {
    case up = 0
    case down = 1
    case left = 2
    case right = 3
    case upMirrored = 4
    case downMirrored = 5
    case leftMirrored = 6
    case rightMirrored = 7

    /// Whether the orientation includes a mirror image.
    public var isMirrored: Bool { rawValue >= 4 }

    /// Whether the upright image's width is the stored image's height.
    public var swapsDimensions: Bool {
        switch self {
        case .left, .right, .leftMirrored, .rightMirrored: return true
        default: return false
        }
    }

    /// The matching EXIF orientation code.
    public var exifOrientation: EXIFOrientation {
        switch self {
        case .up: return .up
        case .down: return .down
        case .left: return .left
        case .right: return .right
        case .upMirrored: return .upMirrored
        case .downMirrored: return .downMirrored
        case .leftMirrored: return .leftMirrored
        case .rightMirrored: return .rightMirrored
        }
    }

    public var description: String {
        switch self {
        case .up: return "up"
        case .down: return "down"
        case .left: return "left"
        case .right: return "right"
        case .upMirrored: return "upMirrored"
        case .downMirrored: return "downMirrored"
        case .leftMirrored: return "leftMirrored"
        case .rightMirrored: return "rightMirrored"
        }
    }
}
