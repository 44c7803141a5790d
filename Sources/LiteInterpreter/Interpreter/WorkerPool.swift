import CKernels

/// The persistent worker threads of one interpreter (a `ck_threadpool`).
final class WorkerPool {
    let handle: OpaquePointer?
    let threadCount: Int

    init(threadCount: Int) throws {
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
