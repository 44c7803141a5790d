import Foundation
import VisionTasks

/// Performs requests on the frames of a video or camera stream, as Vision's
/// `VNSequenceRequestHandler`: each request keeps a tracking state in this handler, so that
/// hands and bodies are followed from frame to frame (MediaPipe's video mode) instead of
/// being searched for anew on every frame.
///
/// <!-- snippet-prelude: import VisionTasks
/// let frames = [try try PixelBuffer(width: 640, height: 480, format: .rgb8, bytes: [UInt8](repeating: 0, count: 640 * 480 * 3))]
/// let handPoseRequest = VNDetectHumanHandPoseRequest() -->
/// ```swift
/// let sequenceHandler = VNSequenceRequestHandler()
/// for frame in frames {
///     try sequenceHandler.perform([handPoseRequest], on: frame, orientation: .up)
/// }
/// ```
///
/// Frames must come in time order. Vision's API carries no timestamp (it is taken from a
/// `CMSampleBuffer`); here `perform(_:on:orientation:)` uses the time of the call and
/// `perform(_:on:orientation:timestampInMilliseconds:)` (an addition) takes the frame's time,
/// which must increase from frame to frame.
public final class VNSequenceRequestHandler: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [ObjectIdentifier: (request: VNRequest, slot: TaskSlot)] = [:]
    private var lastTimestamp: Int?

    /// A handler with no tracking state yet.
    public init() {}

    /// Runs every request on the next frame, timed by the clock.
    public func perform(
        _ requests: [VNRequest], on pixelBuffer: PixelBuffer, orientation: CGImagePropertyOrientation = .up
    ) throws {
        try perform(requests, on: pixelBuffer, orientation: orientation, timestampInMilliseconds: nil)
    }

    /// Runs every request on the next frame, whose time is `timestampInMilliseconds`
    /// (increasing from frame to frame, otherwise `VNError(.invalidArgument)`).
    public func perform(
        _ requests: [VNRequest], on pixelBuffer: PixelBuffer, orientation: CGImagePropertyOrientation = .up,
        timestampInMilliseconds: Int
    ) throws {
        try perform(requests, on: pixelBuffer, orientation: orientation, timestampInMilliseconds: Optional(timestampInMilliseconds))
    }

    private func perform(
        _ requests: [VNRequest], on pixelBuffer: PixelBuffer, orientation: CGImagePropertyOrientation,
        timestampInMilliseconds requested: Int?
    ) throws {
        try lock.withLock {
            let timestamp = try nextTimestamp(requested)
            let image = MPImage(pixelBuffer: pixelBuffer, orientation: orientation.imageOrientation)
            let frame = RequestFrame(
                image: image.mirroringApplied(), mirrored: image.orientation.isMirrored, timestampInMilliseconds: timestamp)
            try performRequests(requests, on: { frame }, slot: slot(for:))
            lastTimestamp = timestamp
        }
    }

    /// The tracking slot of `request` in this handler (kept while the handler lives).
    private func slot(for request: VNRequest) -> TaskSlot {
        let id = ObjectIdentifier(request)
        if let entry = slots[id], entry.request === request { return entry.slot }
        let slot = TaskSlot()
        slots[id] = (request, slot)
        return slot
    }

    private func nextTimestamp(_ requested: Int?) throws -> Int {
        if let requested {
            if let lastTimestamp, requested <= lastTimestamp {
                throw VNError(.invalidArgument, "frame timestamp \(requested) ms is not after the previous frame's \(lastTimestamp) ms")
            }
            return requested
        }
        let now = Int((Date().timeIntervalSince1970 * 1000).rounded(.down))
        guard let lastTimestamp else { return now }
        return max(now, lastTimestamp + 1)
    }
}
