import Foundation

/// Removal of duplicate hands, as MediaPipe's HandLandmarksDeduplicationCalculator (run by the
/// hand landmarker in every mode, after the landmark model): two regions can lock onto the
/// same hand; the later one is dropped.
package enum LandmarksDeduplication {
    /// The indices of hands to drop. Hands are visited in order; hand i is dropped when, for
    /// some hand j kept before it, at least 10 of the 21 landmarks lie closer (in pixels) than
    /// 0.2 × the larger "baseline" size of the two hands, and the IoU of their landmark bounds
    /// exceeds 0.2. The baseline is the longest side of the wrist / index MCP / pinky MCP
    /// triangle.
    package static func handDuplicates(
        _ hands: [[NormalizedLandmark]], imageWidth: Int, imageHeight: Int
    ) -> Set<Int> {
        let w = imageWidth, h = imageHeight
        guard hands.allSatisfy({ $0.count == 21 }) else { return [] }
        let baselines = hands.map { baseline($0, w, h) }
        let bounds = hands.map(Bounds.init)
        var retained: [Int] = []
        var suppressed: Set<Int> = []
        for i in hands.indices {
            var isDuplicate = false
            for j in retained {
                let threshold = max(baselines[i], baselines[j]) * 0.2
                var matched = 0
                for k in 0..<21 where distance(hands[i][k], hands[j][k], w, h) < threshold {
                    matched += 1
                }
                if matched >= 10 && bounds[i].iou(bounds[j]) > 0.2 {
                    isDuplicate = true
                    break
                }
            }
            if isDuplicate { suppressed.insert(i) } else { retained.append(i) }
        }
        return suppressed
    }

    /// Pixel distance, with MediaPipe's arithmetic (squares in double).
    static func distance(_ a: NormalizedLandmark, _ b: NormalizedLandmark, _ width: Int, _ height: Int)
        -> Float
    {
        let dx = Double((a.x - b.x) * Float(width))
        let dy = Double((a.y - b.y) * Float(height))
        return Float((dx * dx + dy * dy).squareRoot())
    }

    static func baseline(_ hand: [NormalizedLandmark], _ width: Int, _ height: Int) -> Float {
        let wrist = 0, indexMCP = 5, pinkyMCP = 17
        var d = distance(hand[wrist], hand[indexMCP], width, height)
        d = max(d, distance(hand[indexMCP], hand[pinkyMCP], width, height))
        d = max(d, distance(hand[pinkyMCP], hand[wrist], width, height))
        return d
    }

    /// Landmark bounds and MediaPipe's `CalculateIOU` (landmarks_utils.cc).
    struct Bounds {
        var left = Float.greatestFiniteMagnitude, top = Float.greatestFiniteMagnitude
        var right = -Float.greatestFiniteMagnitude, bottom = -Float.greatestFiniteMagnitude

        init(_ landmarks: [NormalizedLandmark]) {
            for lm in landmarks {
                left = min(left, lm.x)
                top = min(top, lm.y)
                right = max(right, lm.x)
                bottom = max(bottom, lm.y)
            }
        }

        var area: Float { (right - left) * (bottom - top) }

        func iou(_ other: Bounds) -> Float {
            let a = area, b = other.area
            if a <= 0 || b <= 0 { return 0 }
            let inter =
                max(min(bottom, other.bottom) - max(top, other.top), 0)
                * max(min(right, other.right) - max(left, other.left), 0)
            return inter / (a + b - inter)
        }
    }
}
