import CKernels

/// The persistent worker threads of an interpreter (a `ck_threadpool`). Interpreters that never
/// run at the same time (the models of one vision task, run one after another) can share one
/// pool: its workers then stay warm from one model to the next, instead of each interpreter's
/// idle workers spinning beside the active ones on the same cores.
package final class WorkerPool {
    /// The `ck_threadpool` (nil for one thread), for kernels outside an interpreter that share
    /// its threads (the warps into a model's input and of the pose masks onto the image).
    package let handle: OpaquePointer?
    /// Threads that work on each operator (the calling thread included).
    package let threadCount: Int

    /// Starts `threadCount - 1` worker threads (none for 1).
    /// - Throws: `InterpreterError.invalidThreadCount` outside 1...`Interpreter.Options.maximumThreadCount`,
    ///   `InterpreterError.threadPoolUnavailable` when the threads cannot be created.
    package init(threadCount: Int) throws {
        guard threadCount >= 1, threadCount <= Interpreter.Options.maximumThreadCount else {
            throw InterpreterError.invalidThreadCount(threadCount)
        }
        self.threadCount = threadCount
        if threadCount <= 1 {
            handle = nil
            return
        }
        guard let pool = ck_threadpool_create(Int32(clamping: threadCount)) else {
            throw InterpreterError.threadPoolUnavailable(threadCount: threadCount)
        }
        handle = pool
    }

    /// Threads that work on each operator from the next one on: 1 ... `threadCount` (values
    /// outside are clamped), `threadCount` at first. The others stay idle. Lowering it lets
    /// several pools share the cores (a server's sessions) without remaking the interpreters;
    /// results do not depend on it. Set it between invocations, from any thread.
    package var activeThreadCount: Int {
        get { handle.map { Int(ck_threadpool_thread_count($0)) } ?? 1 }
        set {
            guard let handle else { return }
            ck_threadpool_set_active(handle, Int32(clamping: newValue))
        }
    }

    /// Profiling: starts (or stops) adding up each thread's time in its pieces of operators and
    /// the caller's time in operators split over threads (two clock reads per piece while on).
    /// Set it between invocations.
    package func measureBusyTime(_ on: Bool) {
        if let handle { ck_threadpool_measure(handle, on ? 1 : 0) }
    }

    /// The times added up while measuring, in seconds (zero when the pool was made): `jobs`,
    /// the caller's time in operators split over threads; `threads`, each thread's time in its
    /// pieces of them (the calling thread first). Empty for a one-thread pool.
    package func busyTime() -> (jobs: Double, threads: [Double]) {
        guard let handle, threadCount > 1 else { return (0, []) }
        var jobs: UInt64 = 0
        var threads = [UInt64](repeating: 0, count: threadCount)
        _ = threads.withUnsafeMutableBufferPointer { ck_threadpool_busy_time(handle, &jobs, $0.baseAddress, Int32(clamping: $0.count)) }
        return (Double(jobs) / 1e9, threads.map { Double($0) / 1e9 })
    }

    deinit {
        if let handle { ck_threadpool_destroy(handle) }
    }
}
