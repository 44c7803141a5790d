import Foundation
import VisionTasks

/// What a request is told about the image it runs on.
struct RequestFrame {
    /// The upright picture (mirror applied) the task runs on.
    var image: MPImage
    /// Whether the upright picture is a mirror image of the stored pixels.
    var mirrored: Bool
    /// In a sequence: the frame's time (tracking from frame to frame); nil for a single image.
    var timestampInMilliseconds: Int?
}

/// Called when a request finishes: with the request (its `results` set) or an error.
public typealias VNRequestCompletionHandler = (VNRequest, (any Error)?) -> Void

/// The base of the requests, as Vision's `VNRequest`: a revision and an optional completion
/// handler. Give requests to `VNImageRequestHandler.perform(_:)` or
/// `VNSequenceRequestHandler.perform(_:on:orientation:)`; each subclass has its typed
/// `results`. Like Vision's, a request is not meant to be performed from two threads at once.
public class VNRequest: @unchecked Sendable {
    /// Called after each `perform` with this request and its error, if any.
    public let completionHandler: VNRequestCompletionHandler?

    /// The algorithm revision to run (default: the newest). Performing with a revision not in
    /// `supportedRevisions` is `VNError(.unsupportedRevision)`.
    public var revision: Int

    /// A request with an optional completion handler.
    public init(completionHandler: VNRequestCompletionHandler? = nil) {
        self.completionHandler = completionHandler
        revision = Self.defaultRevision
    }

    /// The revisions this request type supports.
    public class var supportedRevisions: IndexSet { IndexSet(integer: 1) }
    /// The revision a new request runs.
    public class var defaultRevision: Int { 1 }
    /// The newest revision.
    public class var currentRevision: Int { 1 }

    /// Runs the request on one frame. `slot` holds the task instance to use: the request's
    /// own for single images, the sequence handler's for frames of a sequence.
    func perform(on frame: RequestFrame, slot: TaskSlot) throws {
        throw VNError(.unsupportedRequest, "\(type(of: self)) cannot be performed")
    }

    /// Forgets the previous results (before a new perform).
    func clearResults() {}

    /// The request's task slot for single images.
    let imageSlot = TaskSlot()

    /// Checks the revision.
    func checkRevision() throws {
        guard Self.supportedRevisions.contains(revision) else {
            throw VNError(.unsupportedRevision, "\(type(of: self)) revision \(revision) is not supported (supported: \(Array(Self.supportedRevisions)))")
        }
    }
}

/// Holds one task instance (a landmarker) with the settings it was made with, re-made when
/// the settings change.
final class TaskSlot: @unchecked Sendable {
    private var settings: AnyHashable?
    private var task: AnyObject?

    /// The task for `settings`, made with `make` when there is none for them yet.
    func task<T: AnyObject>(for settings: AnyHashable, make: () throws -> T) throws -> T {
        if self.settings == settings, let task = task as? T { return task }
        let made = try make()
        task = made
        self.settings = settings
        return made
    }
}

/// The tasks a request runs: `HandLandmarker` and `PoseLandmarker`, in image or video mode.
protocol FrameDetector: AnyObject {
    associatedtype Output
    func detect(image: MPImage) throws -> Output
    func detect(videoFrame: MPImage, timestampInMilliseconds: Int) throws -> Output
}

extension HandLandmarker: FrameDetector {}
extension PoseLandmarker: FrameDetector {}

extension TaskSlot {
    /// Runs the slot's detector on `frame`: image mode for a single image, video mode (with
    /// tracking) for a frame of a sequence. The detector is made by `make` (given the mode)
    /// the first time and again whenever `settings` change.
    func detect<Detector: FrameDetector>(
        _ frame: RequestFrame, settings: [AnyHashable], make: (RunningMode) throws -> Detector
    ) throws -> Detector.Output {
        let mode: RunningMode = frame.timestampInMilliseconds == nil ? .image : .video
        let detector = try task(for: AnyHashable(settings + [AnyHashable(mode.rawValue)])) { try make(mode) }
        if let timestamp = frame.timestampInMilliseconds {
            return try detector.detect(videoFrame: frame.image, timestampInMilliseconds: timestamp)
        }
        return try detector.detect(image: frame.image)
    }
}

/// Performs `requests` on `frame` as Vision does: every request runs, each one's completion
/// handler is called, and the first error is thrown at the end.
func performRequests(_ requests: [VNRequest], on frame: () throws -> RequestFrame, slot: (VNRequest) -> TaskSlot) throws {
    var firstError: VNError?
    let prepared: Result<RequestFrame, VNError>
    do { prepared = .success(try frame()) } catch { prepared = .failure(VNError.from(error)) }
    for request in requests {
        request.clearResults()
        do {
            try request.checkRevision()
            try request.perform(on: prepared.get(), slot: slot(request))
            request.completionHandler?(request, nil)
        } catch {
            let error = VNError.from(error)
            firstError = firstError ?? error
            request.completionHandler?(request, error)
        }
    }
    if let firstError { throw firstError }
}
