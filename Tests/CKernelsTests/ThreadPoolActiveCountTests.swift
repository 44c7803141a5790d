import CKernels
import Foundation
import XCTest

/// `ck_threadpool_set_active`: how many of a pool's threads take part in the jobs that follow.
final class ThreadPoolActiveCountTests: XCTestCase {
    func testActiveCountIsClampedToThePool() {
        let pool = ck_threadpool_create(3)
        defer { ck_threadpool_destroy(pool) }
        XCTAssertEqual(ck_threadpool_thread_count(pool), 3, "all threads at first")
        for (asked, active) in [(2, 2), (0, 1), (-1, 1), (9, 3), (1, 1), (3, 3)] as [(Int32, Int32)] {
            ck_threadpool_set_active(pool, asked)
            XCTAssertEqual(ck_threadpool_thread_count(pool), active, "after asking for \(asked)")
        }
        ck_threadpool_set_active(nil, 2) // ignored
        XCTAssertEqual(ck_threadpool_thread_count(nil), 1)
    }

    /// Each job of 48 slow indices records which thread ran each index: every index runs once,
    /// on at most `active` distinct threads, and on the caller alone at one.
    func testJobsRunOnTheActiveThreadsOnly() {
        let pool = ck_threadpool_create(3)
        defer { ck_threadpool_destroy(pool) }
        let caller = pthread_self()
        for active: Int32 in [1, 2, 1, 3] {
            ck_threadpool_set_active(pool, active)
            for job in 0..<4 {
                // Long enough for awake workers to join.
                let recorded = RecordedJob.run(on: pool, count: 48, microsecondsPerIndex: 200)
                let hits = recorded.hits, threads = recorded.threads
                XCTAssertEqual(hits, [Int32](repeating: 1, count: 48), "active \(active), job \(job): every index once")
                let distinct = Set(threads)
                XCTAssertLessThanOrEqual(distinct.count, Int(active), "active \(active), job \(job)")
                if active == 1 { XCTAssertEqual(distinct, [caller], "one active thread: the caller alone") }
            }
        }
    }
}
