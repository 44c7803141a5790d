import Foundation
import MediaIO
import VisionTasks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The annotated video of one input (`--annotate`): frames go to a `VideoWriter` on the target
/// or, for the outputs of `--output-dir`, on a temporary file that `finish()` renames onto the
/// target (`AtomicOutput`). Dropped unfinished (the input failed), an atomic one is removed,
/// another is completed with the frames it has, for a look at where it went wrong.
final class AnnotationVideo {
    /// Where the video ends up.
    let target: String
    private let writer: VideoWriter
    private let temporaryPath: String?
    private var finished = false

    /// Starts the video at `target`, after checking that it is none of `inputs`.
    init(target: String, width: Int, height: Int, framesPerSecond: Double, inputs: InputFiles, atomically: Bool) throws {
        try inputs.checkNotAnInput(target)
        if atomically {
            try AtomicOutput.createFolder(of: target)
            temporaryPath = AtomicOutput.temporaryPath(for: target)
        } else {
            temporaryPath = nil
        }
        self.target = target
        writer = try VideoWriter(path: temporaryPath ?? target, width: width, height: height, framesPerSecond: framesPerSecond)
    }

    /// Appends one drawn frame.
    func append(_ image: PixelBuffer, timestampInMilliseconds: Int) throws {
        try writer.append(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Completes the video and, when atomic, puts it in place.
    func finish() throws {
        guard !finished else { return }
        finished = true
        do {
            try writer.finish()
        } catch {
            if let temporaryPath { unlink(temporaryPath) }
            throw error
        }
        if let temporaryPath { try AtomicOutput.commit(temporaryPath, to: target) }
    }

    deinit {
        guard !finished else { return }
        try? writer.finish()
        if let temporaryPath { unlink(temporaryPath) }
    }
}
