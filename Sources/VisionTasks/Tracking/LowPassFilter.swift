/// An exponential low-pass filter with MediaPipe's arithmetic (util/filtering/low_pass_filter):
/// y = α·x + (1 − α)·y_prev, the first value passes through. α·x is a float product, the rest
/// is evaluated in double and rounded to float.
package struct LowPassFilter: Sendable, Hashable {
    package private(set) var alpha: Float
    package private(set) var lastRawValue: Float = 0
    package private(set) var lastValue: Float = 0
    package private(set) var hasLastRawValue = false

    package init(alpha: Float) {
        self.alpha = 0
        setAlpha(alpha)
    }

    /// Sets α; values outside [0, 1] are ignored (MediaPipe logs and keeps the old one).
    package mutating func setAlpha(_ newAlpha: Float) {
        guard newAlpha >= 0, newAlpha <= 1 else { return }
        alpha = newAlpha
    }

    package mutating func apply(_ value: Float) -> Float {
        let result: Float
        if hasLastRawValue {
            result = Float(Double(alpha * value) + (1.0 - Double(alpha)) * Double(lastValue))
        } else {
            result = value
            hasLastRawValue = true
        }
        lastRawValue = value
        lastValue = result
        return result
    }

    package mutating func apply(_ value: Float, alpha newAlpha: Float) -> Float {
        setAlpha(newAlpha)
        return apply(value)
    }
}
