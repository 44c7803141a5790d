import CKernels

/// The persistent worker threads of an interpreter (a `ck_threadpool`). Interpreters that never
/// run at the same time (the models of one vision task, run one after another) can share one
/// pool: its workers then stay warm from one model to the next, instead of each interpreter's
/// idle workers spinning beside the active ones on the same cores.
package final class WorkerPool {
    let handle: OpaquePointer?
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

    deinit {
        if let handle { ck_threadpool_destroy(handle) }
    }
}
