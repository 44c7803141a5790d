import CKernels
import Foundation
import XCTest

/// `ck_threadpool_measure` and `ck_threadpool_busy_time`: the profile's view of whether the
/// threads idle or work.
final class ThreadPoolBusyTimeTests: XCTestCase {
    /// Runs a job of 32 indices of about 100 µs each.
    private func runJob(_ pool: OpaquePointer?) {
        ck_parallel_for(pool, 32, { _, begin, end in
            for _ in begin..<end { usleep(100) }
        }, nil)
    }

    private func times(_ pool: OpaquePointer?) -> (jobs: UInt64, busy: [UInt64]) {
        var jobs: UInt64 = 0
        var busy = [UInt64](repeating: 0, count: 2)
        XCTAssertEqual(ck_threadpool_busy_time(pool, &jobs, &busy, 2), 2)
        return (jobs, busy)
    }

    func testTimeAddsUpOnlyWhileMeasuring() {
        let pool = ck_threadpool_create(2)
        defer { ck_threadpool_destroy(pool) }
        runJob(pool)
        XCTAssertEqual(times(pool).jobs, 0, "nothing before measuring")
        XCTAssertEqual(times(pool).busy, [0, 0])
        ck_threadpool_measure(pool, 1)
        for _ in 0..<5 { runJob(pool) }
        ck_threadpool_measure(pool, 0)
        let measured = times(pool)
        // 5 jobs of 32 x 100 µs: at least 16 ms of work in all, and each thread's pieces lie
        // within the jobs.
        XCTAssertGreaterThanOrEqual(measured.busy.reduce(0, +), 16_000_000)
        XCTAssertGreaterThan(measured.busy[0], 0, "the caller always takes a piece")
        for (slot, busy) in measured.busy.enumerated() {
            XCTAssertLessThanOrEqual(busy, measured.jobs, "thread \(slot) at work longer than the jobs lasted")
        }
        runJob(pool)
        XCTAssertEqual(times(pool).jobs, measured.jobs, "nothing added after measuring stopped")
        XCTAssertEqual(times(pool).busy, measured.busy)
    }

    func testNoPoolHasNoTimes() {
        var jobs: UInt64 = 7
        XCTAssertEqual(ck_threadpool_busy_time(nil, &jobs, nil, 0), 0)
        XCTAssertEqual(jobs, 7, "left alone")
        ck_threadpool_measure(nil, 1) // ignored
    }
}
