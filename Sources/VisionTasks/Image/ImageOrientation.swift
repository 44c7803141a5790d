/// How an image's stored pixels must be rotated (and mirrored) to appear upright, with the
/// cases and raw values of `UIImage.Orientation`, which MediaPipe's `MPImage` takes.
///
/// `.right` is the usual orientation of a portrait photo from a phone's back camera: the
/// stored image must be turned 90 degrees clockwise to be displayed. Mirrored orientations can
/// be given to `MPImage`, but the vision tasks refuse them (`TasksError.invalidArgument`), as
/// MediaPipe's tasks do.
public enum ImageOrientation: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// Stored upright.
    case up = 0
    /// Stored upside down: turned 180° to display.
    case down = 1
    /// Turned 90° counterclockwise to display.
    case left = 2
    /// Turned 90° clockwise to display (a portrait photo from a phone's back camera).
    case right = 3
    /// Mirrored left to right.
    case upMirrored = 4
    /// Mirrored top to bottom.
    case downMirrored = 5
    /// Mirrored, then turned 90° counterclockwise.
    case leftMirrored = 6
    /// Mirrored, then turned 90° clockwise.
    case rightMirrored = 7

    /// Whether the orientation includes a mirror image.
    public var isMirrored: Bool { rawValue >= 4 }

    /// Whether the upright image's width is the stored image's height.
    package var swapsDimensions: Bool {
        switch self {
        case .left, .right, .leftMirrored, .rightMirrored: return true
        default: return false
        }
    }

    /// The matching EXIF orientation code.
    package var exifOrientation: EXIFOrientation {
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

    /// The case's name.
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
