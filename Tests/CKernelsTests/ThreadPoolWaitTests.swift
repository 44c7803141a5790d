import CKernels
import Dispatch
import Foundation
import XCTest

/// The pool's slow paths: workers that fell asleep between jobs must wake for the next one, a
/// caller that waits long for the last piece sleeps and is woken, and a job longer than the
/// claim word counts (2^24 units) is split into units of several indices.
final class ThreadPoolWaitTests: XCTestCase {
    /// Runs `body` on a thread of its own and fails if it has not finished within `seconds`
    /// (a deadlock never finishes; the work itself takes well under a second).
    private func withinDeadline(_ seconds: Double, _ body: @escaping @Sendable () -> Void) {
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            finished.signal()
        }
        XCTAssertEqual(finished.wait(timeout: .now() + seconds), .success, "ck_parallel_for did not return")
    }

    func testWorkersAsleepBetweenJobsWakeForTheNext() {
        let failures = Failures()
        let sharedJobs = Failures()
        withinDeadline(120) {
            let pool = ck_threadpool_create(3)
            for job in 0..<12 {
                // Long enough for the workers to pass their spinning and yielding and block.
                usleep(30_000)
                // Slow enough (about 50 ms per job) that a woken worker joins long before the
                // caller could finish alone.
                let recorded = RecordedJob.run(on: pool, count: 48, microsecondsPerIndex: 1_000)
                let hits = recorded.hits, threads = recorded.threads
                if hits.contains(where: { $0 != 1 }) { failures.add("job \(job)") }
                if Set(threads).count > 1 { sharedJobs.add("job \(job)") }
            }
            ck_threadpool_destroy(pool)
        }
        XCTAssertEqual(failures.all, [])
        // A worker that is never woken leaves every job to the caller. Not all 12 are asked
        // for: a loaded machine may keep a woken worker off the CPU for a whole job.
        XCTAssertGreaterThanOrEqual(sharedJobs.all.count, 6, "jobs that ran on more than one thread: \(sharedJobs.all)")
    }

    func testCallerWaitingLongForTheLastPieceIsWoken() {
        let failures = Failures()
        let waitedJobs = Failures()
        withinDeadline(120) {
            let pool = ck_threadpool_create(2)
            let caller = pthread_self()
            for job in 0..<4 {
                // A short job first, so the worker is awake and spinning when the slow one starts.
                var warm = [Int32](repeating: 0, count: 64)
                warm.withUnsafeMutableBufferPointer { buffer in
                    ck_parallel_for(pool, buffer.count, { context, begin, end in
                        guard let p = context?.assumingMemoryBound(to: Int32.self) else { return }
                        for i in begin..<end { p[i] += 1 }
                    }, buffer.baseAddress)
                }
                var hits = [Int32](repeating: 0, count: 8)
                var slowThread = pthread_t()
                hits.withUnsafeMutableBufferPointer { buffer in
                    withUnsafeMutablePointer(to: &slowThread) { slow in
                        var context = (buffer.baseAddress, slow)
                        withUnsafeMutablePointer(to: &context) { pointer in
                            ck_parallel_for(pool, 8, { raw, begin, end in
                                guard let c = raw?.assumingMemoryBound(to: (UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<pthread_t>).self),
                                      let p = c.pointee.0 else { return }
                                // The worker claims from the tail: a slow last index keeps the
                                // caller waiting past its spinning and yielding, so it blocks
                                // until the worker's completion wakes it.
                                if end == 8 {
                                    c.pointee.1.pointee = pthread_self()
                                    usleep(60_000)
                                } else {
                                    usleep(2_000) // so the worker is there to claim the tail
                                }
                                for i in begin..<end { p[i] += 1 }
                            }, pointer)
                        }
                    }
                }
                if hits.contains(where: { $0 != 1 }) || warm.contains(where: { $0 != 1 }) { failures.add("job \(job)") }
                if slowThread != caller { waitedJobs.add("job \(job)") }
            }
            ck_threadpool_destroy(pool)
        }
        XCTAssertEqual(failures.all, [])
        // Jobs whose slow index ran on the worker, so that the caller waited for it.
        XCTAssertGreaterThanOrEqual(waitedJobs.all.count, 2, "the caller never had to wait: \(waitedJobs.all)")
    }

    func testJobLongerThanTheClaimWordVisitsEveryIndexOnce() {
        let failures = Failures()
        withinDeadline(300) {
            let pool = ck_threadpool_create(2)
            let count = (1 << 24) + 5
            var hits = [UInt8](repeating: 0, count: count)
            hits.withUnsafeMutableBufferPointer { buffer in
                ck_parallel_for(pool, buffer.count, { context, begin, end in
                    guard let p = context?.assumingMemoryBound(to: UInt8.self) else { return }
                    for i in begin..<end { p[i] &+= 1 }
                }, buffer.baseAddress)
            }
            if let bad = hits.firstIndex(where: { $0 != 1 }) { failures.add("index \(bad) visited \(hits[bad]) times") }
            ck_threadpool_destroy(pool)
        }
        XCTAssertEqual(failures.all, [])
    }
}
