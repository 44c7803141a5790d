import Foundation
import TestSupport
@_spi(Apps) import VisionTasks

/// MediaPipe's pose answers as the reference files hold them (`shared/testdata/reference`).
struct PoseReference: Decodable {
    struct Point: Decodable {
        var x: Float
        var y: Float
        var z: Float
        var visibility: Float?
        var presence: Float?
    }

    struct Mask: Decodable {
        var width: Int
        var height: Int
        var mean: Double
        var grid16: [[Double]]
    }

    var landmarks: [[Point]]
    var worldLandmarks: [[Point]]
    var segmentationMasks: [Mask]?
}

/// `NAME.json` of an image case.
struct PoseImageReference: Decodable {
    var width: Int
    var height: Int
    var pose: PoseReference
}

/// One line of `NAME.jsonl` of a video case.
struct PoseVideoReference: Decodable {
    var frame: Int
    var timestampInMilliseconds: Int
    var pose: PoseReference
}

/// How one of our poses differs from the MediaPipe pose it is paired with.
struct PoseDifference {
    /// Mean x,y distance over the landmarks MediaPipe sees as visible (visibility > 0.5);
    /// over all landmarks when none is.
    var meanDistance: Double
    var visibleCount: Int
    var maxVisibility: Double
    var maxPresence: Double
    /// Largest distance (metres) between paired world landmarks.
    var maxWorld: Double
    /// |our mask mean − MediaPipe's|, when both have a mask.
    var maskMean: Double?
    /// Largest |difference| of the 16×16 grid cell means.
    var maskCell: Double?
}

/// Our result beside MediaPipe's for one image or frame.
struct PoseComparison {
    var referenceCount: Int
    var ourCount: Int
    var pairs: [PoseDifference]

    var sameCount: Bool { referenceCount == ourCount }

    /// Pairs each MediaPipe pose with the closest unpaired pose of ours (mean x,y distance
    /// over all landmarks); masks follow their poses.
    init(ours: PoseLandmarkerResult, reference: PoseReference) {
        referenceCount = reference.landmarks.count
        ourCount = ours.landmarks.count
        pairs = []
        var unused = Set(ours.landmarks.indices)
        for (r, ref) in reference.landmarks.enumerated() {
            let best = unused.min { a, b in
                Self.meanDistance(ours.landmarks[a], ref, visibleOnly: false).value
                    < Self.meanDistance(ours.landmarks[b], ref, visibleOnly: false).value
            }
            guard let o = best else { continue }
            unused.remove(o)
            let pose = ours.landmarks[o]
            let (distance, visible) = Self.meanDistance(pose, ref, visibleOnly: true)
            var maxVisibility = 0.0, maxPresence = 0.0, maxWorld = 0.0
            for (a, b) in zip(pose, ref) {
                maxVisibility = max(maxVisibility, Double(abs((a.visibility ?? -1) - (b.visibility ?? 0))))
                maxPresence = max(maxPresence, Double(abs((a.presence ?? -1) - (b.presence ?? 0))))
            }
            if o < ours.worldLandmarks.count, r < reference.worldLandmarks.count {
                for (a, b) in zip(ours.worldLandmarks[o], reference.worldLandmarks[r]) {
                    let d = Double((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z))
                    maxWorld = max(maxWorld, d.squareRoot())
                }
            }
            var maskMean: Double?, maskCell: Double?
            if let refMasks = reference.segmentationMasks, r < refMasks.count, o < ours.segmentationMasks.count {
                let mask = ours.segmentationMasks[o]
                let summary = mask.summary(grid: 16)
                let ref = refMasks[r]
                if mask.width == ref.width && mask.height == ref.height {
                    maskMean = abs(summary.mean - ref.mean)
                    var cell = 0.0
                    for (rowA, rowB) in zip(summary.cells, ref.grid16) {
                        for (a, b) in zip(rowA, rowB) { cell = max(cell, abs(a - b)) }
                    }
                    maskCell = cell
                } else {
                    maskMean = .infinity
                    maskCell = .infinity
                }
            }
            pairs.append(
                PoseDifference(
                    meanDistance: distance, visibleCount: visible, maxVisibility: maxVisibility,
                    maxPresence: maxPresence, maxWorld: maxWorld, maskMean: maskMean, maskCell: maskCell))
        }
    }

    private static func meanDistance(
        _ ours: [NormalizedLandmark], _ ref: [PoseReference.Point], visibleOnly: Bool
    ) -> (value: Double, count: Int) {
        var pairs = Array(zip(ours, ref))
        if visibleOnly {
            let visible = pairs.filter { ($0.1.visibility ?? 0) > 0.5 }
            if !visible.isEmpty { pairs = visible }
        }
        guard !pairs.isEmpty else { return (.infinity, 0) }
        let total = pairs.reduce(0.0) { sum, pair in
            sum + Double(hypotf(pair.0.x - pair.1.x, pair.0.y - pair.1.y))
        }
        return (total / Double(pairs.count), pairs.count)
    }
}

/// Worst figures over many comparisons, for one report line.
struct PoseFigures {
    var frames = 0
    var sameCount = 0
    /// Poses found in all frames, by us and by MediaPipe.
    var ourPoses = 0
    var referencePoses = 0
    var pairedPoses = 0
    var distanceSum = 0.0
    var maxDistance = 0.0
    var maxVisibility = 0.0
    var maxPresence = 0.0
    var maxWorld = 0.0
    var maxMaskMean = 0.0
    var maxMaskCell = 0.0
    var missingMasks = 0

    mutating func add(_ comparison: PoseComparison) {
        frames += 1
        if comparison.sameCount { sameCount += 1 }
        ourPoses += comparison.ourCount
        referencePoses += comparison.referenceCount
        for pair in comparison.pairs {
            pairedPoses += 1
            distanceSum += pair.meanDistance
            maxDistance = max(maxDistance, pair.meanDistance)
            maxVisibility = max(maxVisibility, pair.maxVisibility)
            maxPresence = max(maxPresence, pair.maxPresence)
            maxWorld = max(maxWorld, pair.maxWorld)
            if let m = pair.maskMean, let c = pair.maskCell {
                maxMaskMean = max(maxMaskMean, m)
                maxMaskCell = max(maxMaskCell, c)
            } else {
                missingMasks += 1
            }
        }
    }

    /// Mean over paired poses of their mean visible-landmark distance.
    var meanDistance: Double { pairedPoses == 0 ? 0 : distanceSum / Double(pairedPoses) }
    var sameCountFraction: Double { frames == 0 ? 1 : Double(sameCount) / Double(frames) }

    static let header =
        "file                                       frames same  poses  mean dist   max dist   max vis    max pres   max world  mask mean  mask cell"

    func line(_ name: String) -> String {
        func e(_ v: Double) -> String { String(format: "%.2e", v) }
        return name.padding(toLength: 42, withPad: " ", startingAt: 0)
            + String(format: " %6d %4d %6d", frames, sameCount, pairedPoses)
            + "  \(e(meanDistance))   \(e(maxDistance))   \(e(maxVisibility))   \(e(maxPresence))   \(e(maxWorld))   \(e(maxMaskMean))   \(e(maxMaskCell))"
            + (missingMasks > 0 ? "  (\(missingMasks) without mask)" : "")
    }
}
