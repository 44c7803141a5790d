import Foundation
import MediaIO
import TaskRunner
import VisionTasks

extension MediaDriver {
    /// Runs a live source (`MediaInput.Kind.live`) in live-stream mode, in real time
    /// (`LiveRun`): each result is written (and flushed) as it comes, with its annotated frame
    /// and masks; when the source ends, by itself or on a signal (`stop`), the annotated video
    /// is completed and the counts printed on stderr. A signal is a clean end; a read, task or
    /// output error is thrown after that.
    func runLive<P: FrameProcessor>(
        _ input: MediaInput, _ processor: inout P, writer: RecordWriter, files: OutputFiles, stop: StopSignals
    ) throws {
        let target = annotationTarget(files, video: true)
        var videoWriter: VideoWriter?
        var framesPerSecond = 30.0
        let resultKey = processor.resultKey
        let run = LiveRun<(MPImage) throws -> FrameOutput>(stop: stop) { frame, present in
            let output = try present(MPImage(pixelBuffer: frame.image))
            let record = FrameRecord(
                file: input.path, frame: frame.index, timestampInMilliseconds: frame.timestampInMilliseconds,
                resultKey: resultKey, result: output.record)
            try writer.write(record, summary: output.summary)
            if let target {
                if videoWriter == nil {
                    try files.inputs.checkNotAnInput(target)
                    videoWriter = try VideoWriter(
                        path: target, width: frame.image.width, height: frame.image.height, framesPerSecond: framesPerSecond)
                }
                try videoWriter?.append(
                    AnnotationRenderer.render(output.overlay, on: frame.image), timestampInMilliseconds: frame.timestampInMilliseconds)
            }
            try writeMasks(output.masks, files: files, frame: frame.index)
        }
        guard let task = try processor.beginLive(input: input, deliver: { run.deliver($0, $1) }) else {
            throw LiveSourceError(description: "\(input.path): live sources run with the MediaPipe API only (drop --api)")
        }
        try run.read(
            input, options: options.live, appliesDisplayRotation: !options.ignoreDisplayRotation, task: task,
            opened: { info in if info.framesPerSecond > 0 { framesPerSecond = info.framesPerSecond } },
            finish: { try videoWriter?.finish() })
    }
}

/// A live source that this command cannot run.
struct LiveSourceError: Error, CustomStringConvertible {
    var description: String
}
