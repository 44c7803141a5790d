import CKernels
import Foundation

/// One `ck_parallel_for` over `count` indices that sleeps a while per index and records how
/// often each index ran and on which thread.
struct RecordedJob {
    /// Runs per index (1 everywhere when the pool is right).
    var hits: [Int32]
    /// The thread that ran each index last.
    var threads: [pthread_t]

    private struct Context {
        var hits: UnsafeMutablePointer<Int32>
        var threads: UnsafeMutablePointer<pthread_t>
        var microseconds: UInt32
    }

    /// Runs the job on `pool`, sleeping `microsecondsPerIndex` per index.
    static func run(on pool: OpaquePointer?, count: Int, microsecondsPerIndex: UInt32) -> RecordedJob {
        var job = RecordedJob(hits: [Int32](repeating: 0, count: count), threads: [pthread_t](repeating: pthread_t(), count: count))
        job.hits.withUnsafeMutableBufferPointer { hits in
            job.threads.withUnsafeMutableBufferPointer { threads in
                guard let hitsBase = hits.baseAddress, let threadsBase = threads.baseAddress else { return }
                var context = Context(hits: hitsBase, threads: threadsBase, microseconds: microsecondsPerIndex)
                withUnsafeMutablePointer(to: &context) { pointer in
                    ck_parallel_for(pool, count, { raw, begin, end in
                        guard let context = raw?.assumingMemoryBound(to: Context.self).pointee else { return }
                        for i in begin..<end {
                            usleep(context.microseconds)
                            context.hits[i] += 1
                            context.threads[i] = pthread_self()
                        }
                    }, pointer)
                }
            }
        }
        return job
    }
}
