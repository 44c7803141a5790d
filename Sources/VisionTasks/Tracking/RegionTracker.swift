/// The region tracking loop MediaPipe's hand and pose landmarker graphs run in video and
/// live-stream mode, with the graph plumbing (PreviousLoopbackCalculator,
/// CollectionHasMinSizeCalculator, the detector gate, the association calculator and the clip
/// to `maxRegions`) as one value type.
///
/// Per frame:
/// 1. `needsDetection` — the detector runs only when fewer than `maxRegions` regions are
///    tracked from the previous frame (always on the first frame and after a `reset()`).
/// 2. `regions(detected:)` — tracked and detected regions are associated and clipped to
///    `maxRegions`; the landmark model runs on each.
/// 3. `update(nextFrameRegions:)` — the regions computed from this frame's landmarks (only
///    for objects the landmark model confirmed) become the tracked regions of the next frame.
///
/// In image mode MediaPipe does not track: use `RegionTracker.imageModeRegions`.
package struct RegionTracker: Sendable {
    package let maxRegions: Int
    package let association: RegionAssociation
    /// The regions carried over from the previous frame.
    package private(set) var trackedRegions: [NormalizedRect] = []
    private var nextRectID: Int64 = 1

    package init(maxRegions: Int, association: RegionAssociation) {
        self.maxRegions = max(0, maxRegions)
        self.association = association
    }

    /// Hands: keep tracked regions, `minTrackingConfidence` as the IoU threshold.
    package static func hands(maxHands: Int, minTrackingConfidence: Float) -> RegionTracker {
        RegionTracker(
            maxRegions: maxHands, association: .keepTracked(minSimilarity: minTrackingConfidence))
    }

    /// Poses: detected regions replace overlapping tracked ones, `minTrackingConfidence` as
    /// the IoU threshold.
    package static func poses(maxPoses: Int, minTrackingConfidence: Float) -> RegionTracker {
        RegionTracker(
            maxRegions: maxPoses,
            association: .preferDetected(minSimilarity: minTrackingConfidence))
    }

    /// Whether the detector has to run on the current frame.
    package var needsDetection: Bool { trackedRegions.count < maxRegions }

    /// The regions to run the landmark model on this frame. Pass the detector's regions when
    /// it ran (`needsDetection`), nil otherwise.
    package mutating func regions(detected: [NormalizedRect]?) -> [NormalizedRect] {
        let merged = association.associate(
            tracked: trackedRegions, detected: detected ?? [], nextID: &nextRectID)
        return Array(merged.prefix(maxRegions))
    }

    /// Records the regions for the next frame.
    package mutating func update(nextFrameRegions: [NormalizedRect]) {
        trackedRegions = nextFrameRegions
    }

    /// Forgets the tracked regions (the next frame runs the detector).
    package mutating func reset() {
        trackedRegions = []
    }

    /// Image mode: the detector's regions, clipped to `maxRegions`.
    package static func imageModeRegions(detected: [NormalizedRect], maxRegions: Int) -> [NormalizedRect] {
        Array(detected.prefix(max(0, maxRegions)))
    }
}
