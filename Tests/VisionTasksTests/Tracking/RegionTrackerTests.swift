import XCTest

@testable import VisionTasks

final class RegionTrackerTests: XCTestCase {
    private func rect(_ x: Float, _ y: Float, _ size: Float = 0.2) -> NormalizedRect {
        NormalizedRect(xCenter: x, yCenter: y, width: size, height: size)
    }

    func testHandsKeepTrackedRegionsAndAddNewDetections() {
        var tracker = RegionTracker.hands(maxHands: 2, minTrackingConfidence: 0.5)
        XCTAssertTrue(tracker.needsDetection)
        // First frame: nothing tracked, detections become the regions (with ids).
        let first = tracker.regions(detected: [rect(0.3, 0.5), rect(0.7, 0.5), rect(0.5, 0.1)])
        XCTAssertEqual(first.map(\.xCenter), [0.3, 0.7])
        // Ids are given before the clip, as in MediaPipe (the third detection used id 3).
        XCTAssertEqual(first.map(\.rectID), [1, 2])
        // One hand confirmed: the detector runs again; a detection overlapping the tracked hand
        // (IoU 0.82 > 0.5) is dropped, the tracked region wins.
        tracker.update(nextFrameRegions: [rect(0.3, 0.5)])
        XCTAssertTrue(tracker.needsDetection)
        let second = tracker.regions(detected: [rect(0.32, 0.5), rect(0.8, 0.8)])
        XCTAssertEqual(second.map(\.xCenter), [0.3, 0.8])
        XCTAssertEqual(second.map(\.rectID), [4, 5])
        // Two hands tracked: no detection.
        tracker.update(nextFrameRegions: second)
        XCTAssertFalse(tracker.needsDetection)
        XCTAssertEqual(tracker.regions(detected: nil), second)
        tracker.reset()
        XCTAssertTrue(tracker.needsDetection)
    }

    func testPosesPreferDetectedRegions() {
        var tracker = RegionTracker.poses(maxPoses: 2, minTrackingConfidence: 0.5)
        var tracked = rect(0.3, 0.5)
        tracked.rectID = 7
        tracker.update(nextFrameRegions: [tracked])
        // The detection overlapping the tracked pose replaces it (MediaPipe's generic
        // association: later inputs win) and keeps its identifier; the new person gets one.
        let regions = tracker.regions(detected: [rect(0.32, 0.5), rect(0.8, 0.8)])
        XCTAssertEqual(regions.map(\.xCenter), [0.32, 0.8])
        XCTAssertEqual(regions.map(\.rectID), [7, 1])
        // Overlapping tracked regions collapse too.
        tracker.update(nextFrameRegions: [rect(0.3, 0.5), rect(0.31, 0.5)])
        XCTAssertEqual(tracker.regions(detected: nil).map(\.xCenter), [0.31])
    }

    func testAssociationThresholdIsStrict() {
        // IoU exactly 0.6 is not above 0.6: both kept.
        let a = rect(0.3, 0.5), b = rect(0.32, 0.5)
        var id: Int64 = 1
        let iou = AxisAlignedBox(a).intersectionOverUnion(AxisAlignedBox(b))
        let kept = RegionAssociation.keepTracked(minSimilarity: iou).associate(
            tracked: [a], detected: [b], nextID: &id)
        XCTAssertEqual(kept.count, 2)
    }

    func testImageModeClips() {
        let regions = RegionTracker.imageModeRegions(detected: [rect(0.1, 0.1), rect(0.5, 0.5)], maxRegions: 1)
        XCTAssertEqual(regions.map(\.xCenter), [0.1])
    }

    func testHandDeduplication() {
        func hand(dx: Float) -> [NormalizedLandmark] {
            (0..<21).map { i in
                NormalizedLandmark(x: 0.2 + dx + Float(i % 5) * 0.02, y: 0.3 + Float(i / 5) * 0.03, z: 0)
            }
        }
        let a = hand(dx: 0), nearlyA = hand(dx: 0.001), far = hand(dx: 0.5)
        XCTAssertEqual(
            LandmarksDeduplication.handDuplicates([a, nearlyA, far], imageWidth: 640, imageHeight: 480), [1])
        XCTAssertEqual(
            LandmarksDeduplication.handDuplicates([far, a], imageWidth: 640, imageHeight: 480), [])
    }
}
