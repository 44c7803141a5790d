import Foundation
import VisionTasks

/// An option key of `VNImageRequestHandler` (Vision's `VNImageOption`). The façade accepts
/// options and ignores them (Vision's are a Core Image context and camera intrinsics).
public struct VNImageOption: RawRepresentable, Hashable, Sendable {
    /// The key's string.
    public let rawValue: String
    /// A key from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// Performs requests on one image, as Vision's `VNImageRequestHandler`.
///
/// <!-- snippet-prelude: import VisionTasks
/// let frame = try PixelBuffer(width: 640, height: 480, format: .rgb8, bytes: [UInt8](repeating: 0, count: 640 * 480 * 3))
/// let handPoseRequest = VNDetectHumanHandPoseRequest() -->
/// ```swift
/// let handler = VNImageRequestHandler(cvPixelBuffer: frame, orientation: .up, options: [:])
/// try handler.perform([handPoseRequest])
/// ```
///
/// The image is a `PixelBuffer` (any format `MPImage` takes: RGBA, BGRA, RGB, gray, NV12) or,
/// with `import VisionTasksAppleVisionMedia`, a file or encoded bytes (`init(url:...)`,
/// `init(data:...)`). `orientation` says how the stored pixels are turned to appear upright
/// (EXIF order); results are normalised to that upright image, origin at the lower left.
/// Every perform is independent (no tracking; use `VNSequenceRequestHandler` for video).
public final class VNImageRequestHandler: @unchecked Sendable {
    private let lock = NSLock()
    private let load: () throws -> PixelBuffer
    private let orientation: CGImagePropertyOrientation
    private var loaded: Result<RequestFrame, VNError>?

    /// A handler for pixels in memory (Vision's `init(cvPixelBuffer:orientation:options:)`).
    public convenience init(
        cvPixelBuffer pixelBuffer: PixelBuffer, orientation: CGImagePropertyOrientation = .up,
        options: [VNImageOption: Any] = [:]
    ) {
        self.init(orientation: orientation) { pixelBuffer }
    }

    /// VisionTasks' addition: a handler for an `MPImage` (a decoded file or pixels in memory),
    /// with the image's own orientation.
    public convenience init(image: MPImage, options: [VNImageOption: Any] = [:]) {
        let pixels = image.pixelBuffer
        self.init(orientation: CGImagePropertyOrientation(image.orientation)) { pixels }
    }

    /// A handler whose pixels come from `load` on first perform (decoding errors become
    /// `VNError(.invalidImage)` from `perform`, as Vision reports an unreadable file).
    package init(orientation: CGImagePropertyOrientation, load: @escaping () throws -> PixelBuffer) {
        self.orientation = orientation
        self.load = load
    }

    /// Runs every request on the image. Each request's `results` and completion handler are
    /// set; the first error (a bad image, a missing model, an unsupported revision) is thrown
    /// after all requests ran.
    public func perform(_ requests: [VNRequest]) throws {
        try lock.withLock {
            try performRequests(requests, on: frame, slot: \.imageSlot)
        }
    }

    private func frame() throws -> RequestFrame {
        if let loaded { return try loaded.get() }
        let result: Result<RequestFrame, VNError>
        do {
            let pixels = try load()
            let image = MPImage(pixelBuffer: pixels, orientation: orientation.imageOrientation)
            result = .success(RequestFrame(image: image.mirroringApplied(), mirrored: image.orientation.isMirrored))
        } catch let error as VNError {
            result = .failure(error)
        } catch {
            result = .failure(VNError(.invalidImage, "the image cannot be read: \(error)"))
        }
        loaded = result
        return try result.get()
    }
}
