import Foundation

/// Model Maker's focal loss (Lin et al.) for one-hot labels: for the true class's probability
/// p, clipped to [1e-7, 1 − 1e-7], the loss is −(1 − p)^γ · log p, averaged over the batch
/// (γ = 0 is cross-entropy).
struct FocalLoss: Sendable {
    let gamma: Float
    static let epsilon: Float = 1e-7

    /// The loss of one sample whose true class has probability `p`, and its derivative with
    /// respect to `p` (0 where the clip holds `p`, as TensorFlow's gradient of the clip is).
    func lossAndSlope(_ p: Float) -> (loss: Float, slope: Float) {
        let clipped = min(max(p, Self.epsilon), 1 - Self.epsilon)
        let complement = 1 - clipped
        let logP = logf(clipped)
        let modulation = powf(complement, gamma)
        let loss = -modulation * logP
        guard p >= Self.epsilon, p <= 1 - Self.epsilon else { return (loss, 0) }
        // d/dp of −(1 − p)^γ log p = γ (1 − p)^(γ − 1) log p − (1 − p)^γ / p
        let slope = (gamma == 0 ? 0 : gamma * powf(complement, gamma - 1) * logP) - modulation / clipped
        return (loss, slope)
    }
}
