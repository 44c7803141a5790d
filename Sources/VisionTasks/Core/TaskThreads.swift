import LiteInterpreter

/// A task's model threads, lent to work done for a frame before the task runs it (decoding
/// the frame's JPEG: MediaIO's `ImageDecoder.decode(_:source:maxPixels:threads:)`), so that
/// the second core does not idle through that work either. Not in MediaPipe.
///
/// The threads take one job at a time: use them only from the thread that calls the task,
/// between its calls (never beside a live-stream task's own runner). Results do not depend on
/// them, and they follow the task's `activeThreadCount`.
@_spi(Apps) public struct TaskThreads: @unchecked Sendable {
    private let pool: WorkerPool

    init(pool: WorkerPool) {
        self.pool = pool
    }

    /// The `ck_threadpool` for C kernels (nil for one thread).
    package var handle: OpaquePointer? { pool.handle }
}
