import Foundation
import VisionTasks

/// Compares our hands with MediaPipe's reference hands, pairing them by nearest wrist, and
/// accumulates the figures the acceptance bars are stated in.
struct HandsComparison {
    /// One of our hands paired with one of MediaPipe's.
    struct Pair {
        /// Mean over the 21 landmarks of the (x, y) distance, normalised coordinates.
        var landmarkMean: Double
        /// Mean over the 21 world landmarks of the 3-D distance, metres.
        var worldMean: Double
        /// The largest world landmark coordinate difference, metres.
        var worldMax: Double
        var sameHandedness: Bool
        var handednessScoreDifference: Double
        /// Nil when either side has no gesture for the hand.
        var sameGesture: Bool?
        var gestureScoreDifference: Double?
    }

    /// One frame or image.
    struct Frame {
        var ourCount: Int
        var referenceCount: Int
        var pairs: [Pair]
        var sameCount: Bool { ourCount == referenceCount }
    }

    /// Pairs hands greedily by the smallest wrist distance.
    static func compare(_ ours: GestureRecognizerResult, _ reference: GestureRecognizerResult) -> Frame {
        var candidates: [(Double, Int, Int)] = []
        for (i, a) in ours.landmarks.enumerated() {
            for (j, b) in reference.landmarks.enumerated() where !a.isEmpty && !b.isEmpty {
                candidates.append((Double(hypotf(a[0].x - b[0].x, a[0].y - b[0].y)), i, j))
            }
        }
        candidates.sort { $0.0 < $1.0 }
        var usedOurs = Set<Int>(), usedReference = Set<Int>()
        var pairs: [Pair] = []
        for (_, i, j) in candidates where !usedOurs.contains(i) && !usedReference.contains(j) {
            usedOurs.insert(i)
            usedReference.insert(j)
            pairs.append(pair(ours, i, reference, j))
        }
        return Frame(ourCount: ours.landmarks.count, referenceCount: reference.landmarks.count, pairs: pairs)
    }

    private static func pair(
        _ ours: GestureRecognizerResult, _ i: Int, _ reference: GestureRecognizerResult, _ j: Int
    ) -> Pair {
        let a = ours.landmarks[i], b = reference.landmarks[j]
        let n = min(a.count, b.count)
        var sum = 0.0
        for k in 0..<n { sum += Double(hypotf(a[k].x - b[k].x, a[k].y - b[k].y)) }
        var worldSum = 0.0, worldMax = 0.0
        let wa = i < ours.worldLandmarks.count ? ours.worldLandmarks[i] : []
        let wb = j < reference.worldLandmarks.count ? reference.worldLandmarks[j] : []
        let m = min(wa.count, wb.count)
        for k in 0..<m {
            let dx = Double(wa[k].x - wb[k].x), dy = Double(wa[k].y - wb[k].y), dz = Double(wa[k].z - wb[k].z)
            worldSum += (dx * dx + dy * dy + dz * dz).squareRoot()
            worldMax = max(worldMax, abs(dx), abs(dy), abs(dz))
        }
        let ha = ours.handedness[i].first, hb = reference.handedness[j].first
        let ga = i < ours.gestures.count ? ours.gestures[i].first : nil
        let gb = j < reference.gestures.count ? reference.gestures[j].first : nil
        var sameGesture: Bool?
        var gestureScore: Double?
        if let ga, let gb {
            sameGesture = (ga.categoryName ?? "") == (gb.categoryName ?? "")
            gestureScore = Double(abs(ga.score - gb.score))
        }
        return Pair(
            landmarkMean: n > 0 ? sum / Double(n) : .infinity,
            worldMean: m > 0 ? worldSum / Double(m) : .infinity, worldMax: m > 0 ? worldMax : .infinity,
            sameHandedness: ha?.categoryName == hb?.categoryName,
            handednessScoreDifference: Double(abs((ha?.score ?? 0) - (hb?.score ?? 0))),
            sameGesture: sameGesture, gestureScoreDifference: gestureScore)
    }
}

/// Figures over many frames (a video, or all images).
struct HandsFigures {
    private(set) var frames = 0
    private(set) var sameCountFrames = 0
    private(set) var pairs: [HandsComparison.Pair] = []

    mutating func add(_ frame: HandsComparison.Frame) {
        frames += 1
        if frame.sameCount { sameCountFrames += 1 }
        pairs += frame.pairs
    }

    var sameCountFraction: Double { frames == 0 ? 1 : Double(sameCountFrames) / Double(frames) }
    var landmarkMean: Double { mean(pairs.map(\.landmarkMean)) }
    var worldMean: Double { mean(pairs.map(\.worldMean)) }
    var sameHandednessFraction: Double {
        pairs.isEmpty ? 1 : Double(pairs.filter(\.sameHandedness).count) / Double(pairs.count)
    }
    var sameGestureFraction: Double {
        let known = pairs.compactMap(\.sameGesture)
        return known.isEmpty ? 1 : Double(known.filter { $0 }.count) / Double(known.count)
    }

    func percentile(_ p: Double, _ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((p / 100 * Double(sorted.count - 1)).rounded()))]
    }

    private func mean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }

    /// One line: counts, landmark mean / p50 / p95 / max, world mean / max, labels.
    func summary(_ name: String) -> String {
        let lm = pairs.map(\.landmarkMean), wm = pairs.map(\.worldMean)
        let scores = pairs.map { max($0.handednessScoreDifference, $0.gestureScoreDifference ?? 0) }
        return String(
            format: "%@: frames %d, same count %.1f%%, pairs %d, landmarks mean %.2e p50 %.2e p95 %.2e max %.2e, world mean %.2e max %.2e (largest coordinate difference %.2e m), handedness %.1f%%, gesture %.1f%%, largest score difference %.2e",
            name, frames, 100 * sameCountFraction, pairs.count, landmarkMean, percentile(50, lm),
            percentile(95, lm), lm.max() ?? 0, worldMean, wm.max() ?? 0, pairs.map(\.worldMax).max() ?? 0,
            100 * sameHandednessFraction, 100 * sameGestureFraction, scores.max() ?? 0)
    }
}
