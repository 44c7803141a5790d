/// How regions tracked from the previous frame are merged with newly detected ones.
package enum RegionAssociation: Sendable, Hashable {
    /// MediaPipe's HandAssociationCalculator: every tracked region is kept; a detected region
    /// is added only when its overlap (IoU of the unrotated boxes) with every region already
    /// in the list is at most `minSimilarity`. Regions without an id get the next id.
    case keepTracked(minSimilarity: Float)
    /// MediaPipe's AssociationNormRectCalculator (pose): the tracked regions, then the detected
    /// ones, are appended in order; each appended region first removes every region already in
    /// the list that it overlaps by more than `minSimilarity`. Newer (detected) regions win.
    /// A region without an id that replaces others takes the id of the one it overlaps most
    /// (the same object, seen again by the detector); the geometry is MediaPipe's.
    case preferDetected(minSimilarity: Float)

    /// Merges `tracked` and `detected` regions. Every returned region has an id: tracked
    /// regions keep theirs, new ones are numbered from `nextID`, which is advanced.
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
            for var rect in tracked + detected {
                let box = Self.box(rect)
                var inherited: (id: Int64, overlap: Float)?
                result.removeAll { existing in
                    let overlap = Self.box(existing).intersectionOverUnion(box)
                    guard overlap > threshold else { return false }
                    if let id = existing.rectID, overlap > (inherited?.overlap ?? -1) {
                        inherited = (id, overlap)
                    }
                    return true
                }
                if rect.rectID == nil { rect.rectID = inherited?.id }
                result.append(rect)
            }
            for index in result.indices where result[index].rectID == nil {
                result[index].rectID = nextID
                nextID += 1
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
