import Foundation
import VisionTasks

/// An image for `PoseDetector`, as ML Kit's `VisionImage`. ML Kit builds it from a `UIImage` or
/// a `CMSampleBuffer`; here from an `MPImage` (a decoded file, `MPImage(contentsOfFile:)`, or
/// pixels in memory) or a `PixelBuffer` (the raw camera formats `MPImage` takes).
///
/// `orientation` says how the stored pixels are turned to appear upright, with the eight
/// `UIImage.Orientation` values, mirrored ones included (ML Kit's guide gives `.leftMirrored`
/// for a front camera held upright). Results are in the upright image's pixels; with a
/// mirrored orientation the detector also takes "left" and "right" as the person's real sides,
/// assuming the stored pixels are a camera's unmirrored view (docs/mlkit.md).
public final class VisionImage: @unchecked Sendable {
    private struct Values {
        var orientation: ImageOrientation
        var timestamp: Int?
    }

    private let stored: PixelBuffer
    private let state: Locked<Values>

    /// An image from an `MPImage`; `orientation` starts as the image's own (as ML Kit's guide
    /// copies `UIImage.imageOrientation`).
    public init(image: MPImage) {
        stored = image.pixelBuffer
        state = Locked(Values(orientation: image.orientation))
    }

    /// An image from raw pixels (a camera frame); `orientation` starts as `.up`.
    public init(buffer: PixelBuffer) {
        stored = buffer
        state = Locked(Values(orientation: .up))
    }

    /// How the stored pixels are turned (and mirrored) to appear upright.
    public var orientation: ImageOrientation {
        get { state[\.orientation] }
        set { state[\.orientation] = newValue }
    }

    /// VisionTasks' addition, for `.stream` mode: the frame's time in milliseconds (ML Kit
    /// reads it from the sample buffer). Without one the detector uses the time of the call.
    public var timestampInMilliseconds: Int? {
        get { state[\.timestamp] }
        set { state[\.timestamp] = newValue }
    }

    /// Width of the upright image, in pixels.
    public var width: Int { orientation.swapsDimensions ? stored.height : stored.width }
    /// Height of the upright image, in pixels.
    public var height: Int { orientation.swapsDimensions ? stored.width : stored.height }

    /// What the tasks run on: the upright picture (mirror applied) and whether it is mirrored.
    func taskImage() -> (image: MPImage, mirrored: Bool) {
        let orientation = self.orientation
        return (MPImage(pixelBuffer: stored, orientation: orientation).mirroringApplied(), orientation.isMirrored)
    }
}
