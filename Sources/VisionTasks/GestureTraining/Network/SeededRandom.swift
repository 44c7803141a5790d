/// A seeded random number generator (SplitMix64): the same seed gives the same sequence on every
/// platform, so training with the same seed gives the same weights and the same bundle.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    /// A generator for one purpose (`stream`: weights, dropout, shuffling, splitting) of a
    /// training run with `seed`: streams of one seed do not depend on each other's use.
    init(seed: UInt64, stream: UInt64 = 0) {
        state = seed &+ stream &* 0xD1B5_4A32_D192_ED03
        _ = next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A float in [0, 1) with 24 random bits.
    mutating func unitFloat() -> Float {
        Float(next() >> 40) * 0x1p-24
    }

    /// An index in 0..<count (count > 0), without modulo bias.
    mutating func index(below count: Int) -> Int {
        Int(truncatingIfNeeded: next(upperBound: UInt64(count)))
    }

    /// `values` in a random order (Fisher–Yates).
    mutating func shuffled<T>(_ values: [T]) -> [T] {
        var result = values
        guard result.count > 1 else { return result }
        for i in stride(from: result.count - 1, to: 0, by: -1) {
            result.swapAt(i, index(below: i + 1))
        }
        return result
    }

    /// Purposes of the streams one seed gives.
    enum Stream: UInt64 {
        case weights = 1, dropout, epochShuffle, split
    }

    init(seed: UInt64, _ stream: Stream) {
        self.init(seed: seed, stream: stream.rawValue)
    }
}
