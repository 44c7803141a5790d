import LiteInterpreter

extension WorkerPool {
    /// The pool a task's models share: `threadCount` threads (`VisionTaskSetup`), with the
    /// interpreter's errors as the task's `invalidArgument`.
    static func forTask(threadCount: Int) throws -> WorkerPool {
        do {
            return try WorkerPool(threadCount: threadCount)
        } catch {
            throw TasksError.invalidArgument("The models cannot run on \(threadCount) threads: \(error)")
        }
    }
}
