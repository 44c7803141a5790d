import Foundation

/// The Adam optimiser as Keras applies it (β1 0.9, β2 0.999, ε 1e-7): per parameter, moving
/// averages of the gradient and its square, and a step of
/// `lr · √(1 − β2^t) / (1 − β1^t) · m / (√v + ε)` at step t.
struct AdamOptimizer: Sendable {
    static let beta1: Float = 0.9
    static let beta2: Float = 0.999
    static let epsilon: Float = 1e-7

    private var firstMoments: [Int: [Float]] = [:]
    private var secondMoments: [Int: [Float]] = [:]
    /// The step being taken, from 1.
    private var step = 1

    /// Updates the parameters of one variable (`slot` tells variables apart) with `gradient`.
    mutating func update(_ parameters: inout [Float], gradient: [Float], slot: Int, learningRate: Float) {
        var m = firstMoments[slot] ?? [Float](repeating: 0, count: parameters.count)
        var v = secondMoments[slot] ?? [Float](repeating: 0, count: parameters.count)
        let t = Float(step)
        let alpha = learningRate * (1 - powf(Self.beta2, t)).squareRoot() / (1 - powf(Self.beta1, t))
        for i in parameters.indices {
            let g = gradient[i]
            m[i] += (g - m[i]) * (1 - Self.beta1)
            v[i] += (g * g - v[i]) * (1 - Self.beta2)
            parameters[i] -= m[i] * alpha / (v[i].squareRoot() + Self.epsilon)
        }
        firstMoments[slot] = m
        secondMoments[slot] = v
    }

    /// Ends a step (after every variable was updated).
    mutating func finishStep() {
        step += 1
    }
}
