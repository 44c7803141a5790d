import Foundation

/// The 1€ filter (Casiez et al.) with MediaPipe's arithmetic (util/filtering/one_euro_filter):
/// a low-pass filter whose cutoff grows with the filtered speed,
/// cutoff = minCutoff + β·|dx̂|, α(cutoff) = 1 / (1 + τ/Tₑ) with τ = 1/(2π·cutoff),
/// Tₑ = 1/frequency. The frequency follows the timestamps.
package struct OneEuroFilter: Sendable {
    package private(set) var frequency: Double
    package let minCutoff: Double
    package let beta: Double
    package let derivateCutoff: Double
    package let useFilteredDerivative: Bool
    private var x: LowPassFilter
    private var dx: LowPassFilter
    /// Nanoseconds; −1 until the first value (MediaPipe's `kUninitializedTimestamp`).
    private var lastTime: Int64 = -1

    /// Throws when frequency, minCutoff or derivateCutoff is not above 1e-6.
    package init(
        frequency: Double, minCutoff: Double, beta: Double, derivateCutoff: Double,
        useFilteredDerivative: Bool = false
    ) throws {
        let epsilon = 0.000001
        guard frequency > epsilon else {
            throw TasksError.invalidArgument("frequency should be > 0, but equals: \(frequency)")
        }
        guard minCutoff > epsilon else {
            throw TasksError.invalidArgument("min_cutoff should be > 0, but equals: \(minCutoff)")
        }
        guard derivateCutoff > epsilon else {
            throw TasksError.invalidArgument(
                "derivate_cutoff should be > 0, but equals: \(derivateCutoff)")
        }
        self.frequency = frequency
        self.minCutoff = minCutoff
        self.beta = beta
        self.derivateCutoff = derivateCutoff
        self.useFilteredDerivative = useFilteredDerivative
        self.x = LowPassFilter(alpha: Float(Self.alpha(cutoff: minCutoff, frequency: frequency)))
        self.dx = LowPassFilter(alpha: Float(Self.alpha(cutoff: derivateCutoff, frequency: frequency)))
    }

    private static func alpha(cutoff: Double, frequency: Double) -> Double {
        let te = 1.0 / frequency
        let tau = 1.0 / (2 * Double.pi * cutoff)
        return 1.0 / (1.0 + tau / te)
    }

    /// Filters `value` observed at `timestampNanoseconds`. A timestamp not after the previous
    /// one returns the value unfiltered (and changes nothing), as MediaPipe does.
    package mutating func apply(
        timestampNanoseconds: Int64, value: Double, valueScale: Double = 1, betaScale: Double = 1
    ) -> Double {
        let now = timestampNanoseconds
        if lastTime >= now { return value }
        if lastTime != 0 && now != 0 {
            frequency = 1.0 / (Double(now &- lastTime) * 1e-9)
        }
        lastTime = now
        var dvalue = 0.0
        if x.hasLastRawValue {
            let previous = useFilteredDerivative ? x.lastValue : x.lastRawValue
            dvalue = (value - Double(previous)) * valueScale * frequency
        }
        let edvalue = Double(
            dx.apply(Float(dvalue), alpha: Float(Self.alpha(cutoff: derivateCutoff, frequency: frequency))))
        let cutoff = minCutoff + betaScale * beta * abs(edvalue)
        return Double(x.apply(Float(value), alpha: Float(Self.alpha(cutoff: cutoff, frequency: frequency))))
    }
}
