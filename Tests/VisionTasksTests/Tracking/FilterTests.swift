import XCTest

@testable import VisionTasks

final class FilterTests: XCTestCase {
    func testLowPassFilter() {
        var f = LowPassFilter(alpha: 0.1)
        XCTAssertFalse(f.hasLastRawValue)
        XCTAssertEqual(f.apply(10), 10)  // first value passes
        XCTAssertEqual(f.apply(0), 9)  // 0.1·0 + 0.9·10
        XCTAssertEqual(f.apply(0, alpha: 1), 0)
        f.setAlpha(2)  // out of range: ignored
        XCTAssertEqual(f.alpha, 1)
        XCTAssertEqual(f.lastRawValue, 0)
    }

    func testOneEuroFilterStep() throws {
        // 30 Hz, min cutoff 1: τ = 1/(2π), Tₑ = 1/30, α = 1/(1 + τ/Tₑ) = 1/(1 + 30/(2π)) = 0.1731707.
        var f = try OneEuroFilter(frequency: 30, minCutoff: 1, beta: 0, derivateCutoff: 1)
        XCTAssertEqual(f.apply(timestampNanoseconds: 0, value: 0), 0)
        let step = f.apply(timestampNanoseconds: 33_333_333, value: 1)
        XCTAssertEqual(step, 0.1731707, accuracy: 1e-6)
        // The same timestamp again changes nothing and returns the raw value.
        XCTAssertEqual(f.apply(timestampNanoseconds: 33_333_333, value: 5), 5)
        // The frequency follows the timestamps: 1/(33,333,333 ns) = 30.0000003 Hz.
        let next = f.apply(timestampNanoseconds: 66_666_666, value: 1)
        XCTAssertEqual(next, 0.1731707 + 0.1731707 * (1 - 0.1731707), accuracy: 1e-5)
        XCTAssertEqual(f.frequency, 1 / 0.033333333, accuracy: 1e-6)
    }

    func testOneEuroFilterFollowsFastMotion() throws {
        // β > 0 raises the cutoff with speed: the filter lags less.
        var slow = try OneEuroFilter(frequency: 30, minCutoff: 1, beta: 0, derivateCutoff: 1)
        var fast = try OneEuroFilter(frequency: 30, minCutoff: 1, beta: 10, derivateCutoff: 1)
        var a = 0.0, b = 0.0
        for i in 0..<10 {
            let t = Int64(i) * 33_333_333
            a = slow.apply(timestampNanoseconds: t, value: Double(i))
            b = fast.apply(timestampNanoseconds: t, value: Double(i))
        }
        XCTAssertGreaterThan(b, a)
        XCTAssertLessThan(b, 9)
    }

    func testOneEuroFilterRejectsBadParameters() {
        XCTAssertThrowsError(try OneEuroFilter(frequency: 0, minCutoff: 1, beta: 0, derivateCutoff: 1))
        XCTAssertThrowsError(try OneEuroFilter(frequency: 30, minCutoff: 0, beta: 0, derivateCutoff: 1))
        XCTAssertThrowsError(try OneEuroFilter(frequency: 30, minCutoff: 1, beta: 0, derivateCutoff: 0))
    }

    func testRelativeVelocityFilter() {
        var f = RelativeVelocityFilter(windowSize: 5, velocityScale: 10)
        XCTAssertEqual(f.apply(timestampNanoseconds: 0, value: 0), 0)
        // Distance 1 in 1/30 s: speed 30, α = 1 − 1/(1 + 10·30) = 300/301.
        let out = f.apply(timestampNanoseconds: 33_333_333, value: 1)
        XCTAssertEqual(out, 300.0 / 301.0, accuracy: 1e-5)
        // Staying still: the window still remembers the step, so α stays high but < 1.
        let still = f.apply(timestampNanoseconds: 66_666_666, value: 1)
        XCTAssertGreaterThan(still, out)
        XCTAssertLessThan(still, 1)
    }

    func testVisibilitySmoother() {
        var s = VisibilitySmoother.pose
        let first = s.smooth([NormalizedLandmark(x: 0, y: 0, z: 0, visibility: 1, presence: 0.5)])
        XCTAssertEqual(first[0].visibility, 1)
        let second = s.smooth([NormalizedLandmark(x: 1, y: 2, z: 3, visibility: 0, presence: 0.25)])
        XCTAssertEqual(second[0].visibility ?? -1, 0.9, accuracy: 1e-7)
        XCTAssertEqual(second[0].presence, 0.25)  // only visibility is smoothed
        XCTAssertEqual(second[0].x, 1)
        // A missing visibility reads as 0.
        let third = s.smooth([NormalizedLandmark(x: 0, y: 0, z: 0)])
        XCTAssertEqual(third[0].visibility ?? -1, 0.81, accuracy: 1e-6)
        XCTAssertEqual(s.smooth([NormalizedLandmark]()), [])
        // After the reset the next value passes through.
        XCTAssertEqual(s.smooth([NormalizedLandmark(x: 0, y: 0, z: 0, visibility: 0.3)])[0].visibility, 0.3)
    }

    func testLandmarksSmootherPixelsRoundTrip() throws {
        var s = try LandmarksSmoother(filter: LandmarksSmoother.poseLandmarks)
        let a = [NormalizedLandmark(x: 0.25, y: 0.5, z: -0.1, visibility: 0.7)]
        let region = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5)
        // The first frame passes through (up to the pixel round trip).
        let first = s.smooth(a, imageWidth: 640, imageHeight: 480, scaleRegion: region, timestampMicroseconds: 0)
        XCTAssertEqual(first[0].x, 0.25, accuracy: 1e-7)
        XCTAssertEqual(first[0].z, -0.1, accuracy: 1e-7)
        XCTAssertEqual(first[0].visibility, 0.7)
        // A jump is damped.
        let b = [NormalizedLandmark(x: 0.75, y: 0.5, z: -0.1)]
        let second = s.smooth(b, imageWidth: 640, imageHeight: 480, scaleRegion: region, timestampMicroseconds: 33_333)
        XCTAssertGreaterThan(second[0].x, 0.25)
        XCTAssertLessThan(second[0].x, 0.75)
        // An empty frame resets: the next frame passes through again.
        XCTAssertEqual(s.smooth([], imageWidth: 640, imageHeight: 480, scaleRegion: nil, timestampMicroseconds: 66_666), [])
        let third = s.smooth(b, imageWidth: 640, imageHeight: 480, scaleRegion: region, timestampMicroseconds: 99_999)
        XCTAssertEqual(third[0].x, 0.75, accuracy: 1e-7)
        // Without a region, a single landmark has no extent: below the minimum object scale,
        // MediaPipe returns it unfiltered (and so do we).
        var unscaled = try LandmarksSmoother(filter: LandmarksSmoother.poseLandmarks)
        _ = unscaled.smooth(a, imageWidth: 640, imageHeight: 480, scaleRegion: nil, timestampMicroseconds: 0)
        let jump = unscaled.smooth(b, imageWidth: 640, imageHeight: 480, scaleRegion: nil, timestampMicroseconds: 33_333)
        XCTAssertEqual(jump[0].x, 0.75, accuracy: 1e-7)
    }

    func testWorldLandmarksSmootherAndTinyObjects() throws {
        var world = try LandmarksSmoother(filter: LandmarksSmoother.poseWorldLandmarks)
        _ = world.smooth([Landmark(x: 0, y: 0, z: 0)], timestampMicroseconds: 0)
        let moved = world.smooth([Landmark(x: 1, y: 0, z: 0)], timestampMicroseconds: 33_333)
        XCTAssertGreaterThan(moved[0].x, 0)
        XCTAssertLessThan(moved[0].x, 1)
        // With value scaling, objects smaller than the minimum scale are not filtered.
        var scaled = try LandmarksSmoother(filter: .oneEuro(minCutoff: 0.05, beta: 80))
        let point = [Landmark(x: 5, y: 5, z: 0), Landmark(x: 5, y: 5, z: 1)]
        _ = scaled.smooth(point, timestampMicroseconds: 0)
        XCTAssertEqual(scaled.smooth([Landmark(x: 9, y: 9, z: 0), Landmark(x: 9, y: 9, z: 0)], timestampMicroseconds: 1000)[0].x, 9)
        XCTAssertThrowsError(try LandmarksSmoother(filter: .oneEuro(minCutoff: 0)))
        var none = try LandmarksSmoother(filter: .none)
        XCTAssertEqual(none.smooth(point, timestampMicroseconds: 0), point)
    }
}
