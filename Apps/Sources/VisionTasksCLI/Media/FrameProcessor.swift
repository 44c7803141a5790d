import MediaIO
import VisionTasks

/// What a task computed for one image or frame.
struct FrameOutput {
    /// The task's result, written as JSON under the processor's `resultKey`.
    var record: any Encodable
    /// A one-line human summary for `--output-format text` (e.g. "1 hand: Thumb_Up 0.87").
    var summary: String
    /// What `--annotate` draws on the image.
    var overlay: Overlay
    /// Segmentation masks for `--masks` (gray8, one per detected person), if any.
    var masks: [PixelBuffer] = []
}

/// A task as the media driver sees it. Task commands (gesture, hands, pose) implement this and
/// hand it to `MediaDriver`, which does inputs, decoding, output, annotation and progress.
protocol FrameProcessor {
    /// Key under which records hold the result: `gesture`, `hands` or `pose`.
    var resultKey: String { get }

    /// Called before each input. `mode` is `.image` for still images (and every frame under
    /// `--running-mode image`), `.video` for the frames of a video or raw stream, which then
    /// come with increasing timestamps from 0: a video-mode task creates a fresh instance here.
    mutating func begin(input: MediaInput, mode: RunningMode) throws

    /// Runs the task on one image or frame. For images `timestampInMilliseconds` and
    /// `frameIndex` are 0.
    mutating func process(image: MPImage, timestampInMilliseconds: Int, frameIndex: Int) throws -> FrameOutput

    /// Called before a live source (a camera, a network stream): starts a task in live-stream
    /// mode whose results go to `deliver` (on the task's result queue). nil when the
    /// processor has no live-stream mode; the driver then refuses the source.
    mutating func beginLive(input: MediaInput, deliver: @escaping LiveDelivery) throws -> LiveTaskHandle?

    /// Called after a video, raw stream or live source has been read to its end: the line that
    /// closes its text output (`vision-tasks pose --classify`: the repetition counts), or nil.
    mutating func end(input: MediaInput) -> String?
}

extension FrameProcessor {
    mutating func beginLive(input: MediaInput, deliver: @escaping LiveDelivery) throws -> LiveTaskHandle? { nil }
    mutating func end(input: MediaInput) -> String? { nil }
}
