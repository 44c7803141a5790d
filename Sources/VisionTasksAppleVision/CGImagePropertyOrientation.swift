import VisionTasks

/// How an image's stored pixels are turned to appear upright, as Core Graphics'
/// `CGImagePropertyOrientation`: the eight EXIF orientation codes, with their raw values.
public enum CGImagePropertyOrientation: UInt32, Sendable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: turned 180°.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored, then turned 90° counterclockwise.
    case leftMirrored = 5
    /// 6: turned 90° clockwise to display (a portrait photo from a phone's back camera).
    case right = 6
    /// 7: mirrored, then turned 90° clockwise.
    case rightMirrored = 7
    /// 8: turned 90° counterclockwise to display.
    case left = 8

    /// The same orientation as an `MPImage` takes it (`UIImage.Orientation` order).
    public var imageOrientation: ImageOrientation {
        switch self {
        case .up: return .up
        case .upMirrored: return .upMirrored
        case .down: return .down
        case .downMirrored: return .downMirrored
        case .leftMirrored: return .leftMirrored
        case .right: return .right
        case .rightMirrored: return .rightMirrored
        case .left: return .left
        }
    }

    /// The orientation `MPImage` calls `orientation`, as an EXIF orientation.
    public init(_ orientation: ImageOrientation) {
        switch orientation {
        case .up: self = .up
        case .upMirrored: self = .upMirrored
        case .down: self = .down
        case .downMirrored: self = .downMirrored
        case .leftMirrored: self = .leftMirrored
        case .right: self = .right
        case .rightMirrored: self = .rightMirrored
        case .left: self = .left
        }
    }
}
