import CKernels
import Dispatch
import Foundation
import XCTest

/// Many short jobs in a row whose chunk counts alternate between small and large: a worker
/// that is still leaving the previous job must never claim a chunk of the next one through
/// the previous job's claim counter (it would run part of the new job twice and leave the
/// caller waiting for a completion count it never reaches).
final class ThreadPoolRaceTests: XCTestCase {
    private final class Box: @unchecked Sendable {
        var failures = 0
        /// Jobs completed so far, read by the test thread to tell a hang from a slow machine.
        let progress = ProgressCounter()
    }

    func testAlternatingJobSizesNeitherRepeatNorHang() {
        let box = Box()
        let finished = DispatchSemaphore(value: 0)
        let jobs = 20_000
        let thread = Thread {
            let pool = ck_threadpool_create(8)
            var hits = [Int32](repeating: 0, count: 64)
            for iteration in 0..<jobs {
                let count = iteration % 2 == 0 ? 2 : 64
                hits.withUnsafeMutableBufferPointer { buffer in
                    for i in 0..<count { buffer[i] = 0 }
                    ck_parallel_for(pool, count, { context, begin, end in
                        let p = context!.assumingMemoryBound(to: Int32.self)
                        // Giving up the CPU in the middle of a job lets the scheduler interleave
                        // the threads at many different points.
                        sched_yield()
                        for i in begin..<end { p[i] &+= 1 }
                    }, buffer.baseAddress)
                    for i in 0..<count where buffer[i] != 1 { box.failures += 1 }
                }
                box.progress.increment()
            }
            ck_threadpool_destroy(pool)
            finished.signal()
        }
        thread.start()
        // A hang is one job that never returns, not a slow run: on a loaded 2-core machine the
        // 8 threads and their sched_yield calls can take minutes for all the jobs (a CI run
        // beside three builds needed more than 120 s). Fail only when no job finished for 60 s.
        var seen = -1
        while finished.wait(timeout: .now() + 60) == .timedOut {
            let now = box.progress.value
            guard now != seen else {
                return XCTFail("ck_parallel_for did not return within 60 s (job \(now) of \(jobs)): a worker took part in a job it was not counted in")
            }
            seen = now
        }
        XCTAssertEqual(box.failures, 0, "indices visited more or less than once")
    }
}

/// A counter written by one thread and read by another.
private final class ProgressCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
