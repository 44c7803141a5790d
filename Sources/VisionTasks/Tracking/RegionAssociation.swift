/// How regions tracked from the previous frame are merged with newly detected ones.
package enum RegionAssociation: Sendable, Hashable {
    /// MediaPipe's HandAssociationCalculator: every tracked region is kept; a detected region
    /// is added only when its overlap (IoU of the unrotated boxes) with every region already
    /// in the list is at most `minSimilarity`. Regions without an id get the next id.
    case keepTracked(minSimilarity: Float)
    /// MediaPipe's AssociationNormRectCalculator (pose): the tracked regions, then the detected
    /// ones, are appended in order; each appended region first removes every region already in
    /// the list that it overlaps by more than `minSimilarity`. Newer (detected) regions win.
    case preferDetected(minSimilarity: Float)

    /// Merges `tracked` and `detected` regions. `nextID` numbers regions for `.keepTracked`.
    package func associate(
        tracked: [NormalizedRect], detected: [NormalizedRect], nextID: inout Int64
    ) -> [NormalizedRect] {
        switch self {
        case .keepTracked(let threshold):
            var result: [NormalizedRect] = []
            for var rect in tracked {
                if rect.rectID == nil {
                    rect.rectID = nextID
                    nextID += 1
                }
                result.append(rect)
            }
            for var rect in detected {
                let box = Self.box(rect)
                let overlaps = result.contains { existing in
                    Self.box(existing).intersectionOverUnion(box) > threshold
                }
                if !overlaps {
                    if rect.rectID == nil {
                        rect.rectID = nextID
                        nextID += 1
                    }
                    result.append(rect)
                }
            }
            return result
        case .preferDetected(let threshold):
            var result: [NormalizedRect] = []
            for rect in tracked + detected {
                let box = Self.box(rect)
                result.removeAll { Self.box($0).intersectionOverUnion(box) > threshold }
                result.append(rect)
            }
            return result
        }
    }

    /// The unrotated box MediaPipe compares; a negative size (which MediaPipe rejects with an
    /// error) yields an empty box that overlaps nothing.
    private static func box(_ rect: NormalizedRect) -> AxisAlignedBox {
        guard rect.width >= 0, rect.height >= 0 else {
            return AxisAlignedBox(xmin: 1, ymin: 1, xmax: 0, ymax: 0)
        }
        return AxisAlignedBox(rect)
    }
}
