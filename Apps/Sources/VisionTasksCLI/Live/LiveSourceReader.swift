import Dispatch
import Foundation
import MediaIO

/// Reads a live source (`MediaInput.Kind.live`) in real time on the calling thread and hands
/// each frame, as it arrives, to a handler that must not wait for the task (it sends the frame
/// to a live-stream task, which drops it when busy): so frames are never queued behind a slow
/// model, and a result is never older than the frame in work.
enum LiveSourceReader {
    /// How a live source ended.
    enum End: Equatable {
        /// The source ended by itself (the server closed the stream, the file ended).
        case endOfStream
        /// A signal (or an output error) stopped it.
        case stopped
        /// A UDP or RTP stream fell silent for the timeout after its first frame: these have
        /// no end-of-stream message, so silence is how they end.
        case silence(String)
    }

    /// Opens a live or stream input through FFmpeg with the command's live options.
    static func open(_ input: MediaInput, options: LiveOptions, appliesDisplayRotation: Bool, token: InterruptToken?) throws
        -> VideoReader
    {
        try VideoReader(
            source: input.path,
            options: options.sourceOptions(live: input.kind == .live, appliesDisplayRotation: appliesDisplayRotation, token: token))
    }

    /// Reads until the source ends, fails (thrown) or `token` stops it; calls `handle` with
    /// each frame and its arrival time (`DispatchTime` nanoseconds). A regular file (`--live`
    /// on a file) is paced: each frame waits until its timestamp has passed since the first,
    /// as a camera would deliver it.
    static func run(
        _ reader: VideoReader, timeoutSeconds: Double, token: InterruptToken, statistics: LiveStatistics,
        handle: (VideoFrame, UInt64) throws -> Void
    ) throws -> End {
        let paced = isRegularFile(reader.path)
        var origin: UInt64?
        while true {
            let frame: VideoFrame?
            do {
                frame = try reader.nextFrame()
            } catch {
                if reader.timedOut, statistics.receivedCount > 0,
                   let scheme = LiveOptions.urlScheme(reader.path), ["udp", "rtp"].contains(scheme) {
                    return .silence("no data for \(timeoutSeconds) s (--input-timeout): the \(scheme) stream has ended")
                }
                throw error
            }
            guard let frame else { return reader.wasInterrupted || token.isInterrupted ? .stopped : .endOfStream }
            if paced {
                let offset = UInt64(max(0, frame.timestampInMilliseconds)) * 1_000_000
                if origin == nil { origin = DispatchTime.now().uptimeNanoseconds &- offset }
                let due = (origin ?? 0) &+ offset
                while !token.isInterrupted, DispatchTime.now().uptimeNanoseconds < due {
                    let left = due &- DispatchTime.now().uptimeNanoseconds
                    usleep(useconds_t(min(left / 1000, 50_000)))
                }
                if token.isInterrupted { return .stopped }
            }
            statistics.frameReceived()
            try handle(frame, DispatchTime.now().uptimeNanoseconds)
        }
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
