/// MediaPipe's relative velocity filter (util/filtering/relative_velocity_filter): a low-pass
/// filter with α = 1 − 1/(1 + velocityScale·|v|), where v is the (scaled) speed over a window
/// of recent steps. Used by MediaPipe's legacy hand/pose solutions (window 5, scale 10).
package struct RelativeVelocityFilter: Sendable {
    /// How the distance of one step is measured.
    package enum DistanceMode: Sendable, Hashable {
        /// value·scale − previous·previousScale (MediaPipe's default).
        case legacyTransition
        /// scale·(value − previous).
        case forceCurrentScale
    }

    private struct Step: Sendable {
        var distance: Float
        var duration: Int64
    }

    package let windowSize: Int
    package let velocityScale: Float
    package let distanceMode: DistanceMode
    private var lastValue: Float = 0
    private var lastValueScale: Float = 1
    private var lastTimestamp: Int64 = -1
    /// Newest first. Starts with `windowSize` zero steps, as MediaPipe's
    /// `std::deque window_{window_size}` does.
    private var window: [Step]
    private var lowPass = LowPassFilter(alpha: 1)

    package init(windowSize: Int = 5, velocityScale: Float = 10, distanceMode: DistanceMode = .legacyTransition) {
        self.windowSize = max(0, windowSize)
        self.velocityScale = velocityScale
        self.distanceMode = distanceMode
        self.window = Array(repeating: Step(distance: 0, duration: 0), count: max(0, windowSize))
    }

    package mutating func apply(timestampNanoseconds: Int64, value: Float, valueScale: Float = 1) -> Float {
        let now = timestampNanoseconds
        if lastTimestamp >= now { return value }
        let alpha: Float
        if lastTimestamp == -1 {
            alpha = 1
        } else {
            let distance: Float =
                distanceMode == .legacyTransition
                ? value * valueScale - lastValue * lastValueScale
                : valueScale * (value - lastValue)
            let duration = now &- lastTimestamp
            var cumulativeDistance = distance
            var cumulativeDuration = duration
            let assumedMaxDuration: Int64 = 1_000_000_000 / 30
            let maxCumulativeDuration = Int64(1 + window.count) &* assumedMaxDuration
            for step in window {
                if cumulativeDuration &+ step.duration > maxCumulativeDuration { break }
                cumulativeDistance += step.distance
                cumulativeDuration = cumulativeDuration &+ step.duration
            }
            let velocity = Float(Double(cumulativeDistance) / (Double(cumulativeDuration) * 1e-9))
            alpha = 1.0 - 1.0 / (1.0 + velocityScale * abs(velocity))
            window.insert(Step(distance: distance, duration: duration), at: 0)
            if window.count > windowSize { window.removeLast() }
        }
        lastValue = value
        lastValueScale = valueScale
        lastTimestamp = now
        return lowPass.apply(value, alpha: alpha)
    }
}
