/// Non-maximum suppression as MediaPipe's NonMaxSuppressionCalculator (single class).
package struct NonMaxSuppression: Sendable, Hashable {
    /// How the overlap of two boxes is measured.
    package enum OverlapType: Sendable, Hashable {
        /// Intersection over the area of the union box (the smallest box holding both).
        case jaccard
        /// Intersection over the area of the box being tested.
        case modifiedJaccard
        /// Intersection over (area₁ + area₂ − intersection).
        case intersectionOverUnion
    }

    /// What happens to the boxes that overlap a kept one.
    package enum Algorithm: Sendable, Hashable {
        /// They are dropped.
        case `default`
        /// They are averaged into the kept box, weighted by score (box corners and keypoints).
        case weighted
    }

    /// Boxes overlapping a kept box by more than this are suppressed.
    package var minSuppressionThreshold: Float
    package var overlapType: OverlapType
    package var algorithm: Algorithm
    /// At most this many detections (−1: no limit; ignored by the weighted algorithm, as in
    /// MediaPipe).
    package var maxNumDetections: Int = -1
    /// Processing stops at the first detection scoring below this (≤ 0: disabled).
    package var minScoreThreshold: Float = -1

    package init(
        minSuppressionThreshold: Float, overlapType: OverlapType, algorithm: Algorithm,
        maxNumDetections: Int = -1, minScoreThreshold: Float = -1
    ) {
        self.minSuppressionThreshold = minSuppressionThreshold
        self.overlapType = overlapType
        self.algorithm = algorithm
        self.maxNumDetections = maxNumDetections
        self.minScoreThreshold = minScoreThreshold
    }

    /// The palm detector's: weighted, IoU, threshold 0.3 (hand_detector_graph.cc).
    package static let palmDetection = NonMaxSuppression(
        minSuppressionThreshold: 0.3, overlapType: .intersectionOverUnion, algorithm: .weighted)

    /// The pose detector's: weighted, IoU, threshold `min_suppression_threshold` (0.5 by
    /// default, pose_detector_graph.cc).
    package static func poseDetection(minSuppressionThreshold: Float = 0.5) -> NonMaxSuppression {
        NonMaxSuppression(
            minSuppressionThreshold: minSuppressionThreshold, overlapType: .intersectionOverUnion,
            algorithm: .weighted)
    }

    /// The overlap of `tested` with `reference` (MediaPipe's `OverlapSimilarity(type, rect1,
    /// rect2)` with rect1 = `reference`, rect2 = `tested`).
    package func similarity(_ reference: AxisAlignedBox, _ tested: AxisAlignedBox) -> Float {
        guard reference.intersects(tested) else { return 0 }
        let intersection = reference.intersection(tested).area
        let normalization: Float
        switch overlapType {
        case .jaccard: normalization = reference.union(tested).area
        case .modifiedJaccard: normalization = tested.area
        case .intersectionOverUnion: normalization = reference.area + tested.area - intersection
        }
        return normalization > 0 ? intersection / normalization : 0
    }

    /// Suppresses overlapping detections. Detections are ordered by descending score first
    /// (a stable sort: MediaPipe's `std::sort` leaves the order of equal scores unspecified).
    package func apply(_ detections: [Detection]) -> [Detection] {
        let order = detections.indices.sorted { lhs, rhs in
            let a = detections[lhs].score, b = detections[rhs].score
            return a > b || (a == b && lhs < rhs)
        }
        switch algorithm {
        case .default: return suppress(detections, order)
        case .weighted: return suppressWeighted(detections, order)
        }
    }

    private func suppress(_ detections: [Detection], _ order: [Int]) -> [Detection] {
        let limit = maxNumDetections > -1 ? maxNumDetections : order.count
        var kept: [Detection] = []
        var keptBoxes: [AxisAlignedBox] = []
        for index in order {
            if kept.count >= limit { break }
            let detection = detections[index]
            if minScoreThreshold > 0 && detection.score < minScoreThreshold { break }
            let box = detection.box
            let suppressed = keptBoxes.contains { similarity($0, box) > minSuppressionThreshold }
            if !suppressed {
                kept.append(detection)
                keptBoxes.append(box)
            }
        }
        return kept
    }

    private func suppressWeighted(_ detections: [Detection], _ order: [Int]) -> [Detection] {
        var remaining = order
        var output: [Detection] = []
        while !remaining.isEmpty {
            let top = detections[remaining[0]]
            if minScoreThreshold > 0 && top.score < minScoreThreshold { break }
            let topBox = top.box
            var candidates: [Int] = []
            var rest: [Int] = []
            for index in remaining {
                if similarity(detections[index].box, topBox) > minSuppressionThreshold {
                    candidates.append(index)
                } else {
                    rest.append(index)
                }
            }
            var weighted = top
            if !candidates.isEmpty {
                var keypoints = [Float](repeating: 0, count: top.keypoints.count * 2)
                var wXmin: Float = 0, wYmin: Float = 0, wXmax: Float = 0, wYmax: Float = 0
                var totalScore: Float = 0
                for index in candidates {
                    let c = detections[index]
                    let s = c.score
                    totalScore += s
                    wXmin += c.xmin * s
                    wYmin += c.ymin * s
                    wXmax += (c.xmin + c.width) * s
                    wYmax += (c.ymin + c.height) * s
                    for k in 0..<min(top.keypoints.count, c.keypoints.count) {
                        keypoints[k * 2] += c.keypoints[k].x * s
                        keypoints[k * 2 + 1] += c.keypoints[k].y * s
                    }
                }
                weighted.xmin = wXmin / totalScore
                weighted.ymin = wYmin / totalScore
                weighted.width = (wXmax / totalScore) - weighted.xmin
                weighted.height = (wYmax / totalScore) - weighted.ymin
                for k in weighted.keypoints.indices {
                    weighted.keypoints[k] = Detection.Keypoint(
                        x: keypoints[k * 2] / totalScore, y: keypoints[k * 2 + 1] / totalScore)
                }
            }
            output.append(weighted)
            // As in MediaPipe: stop when nothing was removed (e.g. the top box has no area and
            // so does not even overlap itself).
            if rest.count == remaining.count { break }
            remaining = rest
        }
        return output
    }
}
