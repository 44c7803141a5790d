import CKernels
import Dispatch
import XCTest

/// Back-to-back jobs of changing sizes, as an interpreter runs them (one per operator): a
/// worker still leaving the previous job must never take part in the next one with the old
/// job's bookkeeping. (An earlier pool let it: chunks ran twice, and a job either ended early,
/// leaving a chunk running on a dead stack frame, which crashed vision-tasks-bench, or never
/// ended; this test deadlocked it on every run.)
final class ThreadPoolStressTests: XCTestCase {
    func testBackToBackJobsOfChangingSizesVisitEveryIndexOnce() {
        let finished = DispatchSemaphore(value: 0)
        let failures = Failures()
        Thread.detachNewThread {
            for threads in [2, 3] {
                let pool = ck_threadpool_create(Int32(threads))
                let counts = [2, 40, 3, 17, 5, 64, 7, 9, 30, 4]
                for job in 0..<200_000 {
                    let count = counts[job % counts.count]
                    var hits = [Int32](repeating: 0, count: count)
                    hits.withUnsafeMutableBufferPointer { buffer in
                        ck_parallel_for(pool, count, { context, begin, end in
                            guard let p = context?.assumingMemoryBound(to: Int32.self) else { return }
                            for i in begin..<end { p[i] += 1 }
                        }, buffer.baseAddress)
                    }
                    if hits.contains(where: { $0 != 1 }) { failures.add("threads \(threads), job \(job)") }
                }
                ck_threadpool_destroy(pool)
            }
            finished.signal()
        }
        // Not a speed limit: the loop takes well under a second; a deadlock never ends.
        XCTAssertEqual(finished.wait(timeout: .now() + 300), .success, "the thread pool deadlocked")
        XCTAssertEqual(failures.all, [])
    }
}
