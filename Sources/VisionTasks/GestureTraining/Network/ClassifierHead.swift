import Foundation

/// Model Maker's gesture classifier head, trained on embeddings: for each hidden width and then
/// once more for the output, a block of BatchNormalization, ReLU, Dropout and Dense; softmax
/// over the last Dense's outputs. The arithmetic is Keras': batch statistics (biased variance)
/// while training, moving averages (momentum 0.99, epsilon 0.001) for inference, inverted
/// dropout, Glorot-uniform kernels and zero biases.
///
/// Dense weights are stored as TFLite's FULLY_CONNECTED takes them: [outputs][inputs].
struct ClassifierHead: Sendable, Equatable {
    struct BatchNorm: Sendable, Equatable {
        var gamma: [Float]
        var beta: [Float]
        var movingMean: [Float]
        var movingVariance: [Float]
        static let epsilon: Float = 0.001
        static let momentum: Float = 0.99

        init(size: Int) {
            gamma = [Float](repeating: 1, count: size)
            beta = [Float](repeating: 0, count: size)
            movingMean = [Float](repeating: 0, count: size)
            movingVariance = [Float](repeating: 1, count: size)
        }

        /// Inference as one multiply and one add per value (how the exported model folds it).
        var folded: (scale: [Float], shift: [Float]) {
            var scale = [Float](repeating: 0, count: gamma.count)
            var shift = scale
            for j in gamma.indices {
                scale[j] = gamma[j] / (movingVariance[j] + Self.epsilon).squareRoot()
                shift[j] = beta[j] - movingMean[j] * scale[j]
            }
            return (scale, shift)
        }
    }

    struct Dense: Sendable, Equatable {
        let inputs: Int
        let outputs: Int
        var weights: [Float]
        var bias: [Float]

        /// Glorot-uniform weights (Keras' default kernel initialiser), zero bias.
        init(inputs: Int, outputs: Int, random: inout SeededRandom) {
            self.inputs = inputs
            self.outputs = outputs
            let limit = (6 / Float(inputs + outputs)).squareRoot()
            weights = (0..<(inputs * outputs)).map { _ in (random.unitFloat() * 2 - 1) * limit }
            bias = [Float](repeating: 0, count: outputs)
        }
    }

    struct Block: Sendable, Equatable {
        var norm: BatchNorm
        var dense: Dense
    }

    var blocks: [Block]
    let dropoutRate: Float

    var inputSize: Int { blocks.first?.dense.inputs ?? 0 }
    var classCount: Int { blocks.last?.dense.outputs ?? 0 }

    init(inputSize: Int, hiddenWidths: [Int], classCount: Int, dropoutRate: Float, random: inout SeededRandom) {
        var blocks: [Block] = []
        var width = inputSize
        for next in hiddenWidths + [classCount] {
            blocks.append(Block(norm: BatchNorm(size: width), dense: Dense(inputs: width, outputs: next, random: &random)))
            width = next
        }
        self.blocks = blocks
        self.dropoutRate = dropoutRate
    }

    // MARK: - Inference

    /// Class probabilities for one embedding (inference mode: moving statistics, no dropout).
    func probabilities(_ embedding: [Float]) -> [Float] {
        var x = embedding
        for block in blocks {
            let (scale, shift) = block.norm.folded
            for j in x.indices { x[j] = max(0, x[j] * scale[j] + shift[j]) }
            x = Self.dense(block.dense, x)
        }
        return Self.softmax(x)
    }

    static func dense(_ layer: Dense, _ x: [Float]) -> [Float] {
        var y = layer.bias
        for o in 0..<layer.outputs {
            var sum: Float = 0
            let row = o * layer.inputs
            for i in 0..<layer.inputs { sum += layer.weights[row + i] * x[i] }
            y[o] += sum
        }
        return y
    }

    static func softmax(_ logits: [Float]) -> [Float] {
        let top = logits.max() ?? 0
        let exps = logits.map { expf($0 - top) }
        let total = exps.reduce(0, +)
        return exps.map { $0 / total }
    }

    // MARK: - Training

    /// What the forward pass of one block keeps for the backward pass.
    private struct BlockTrace {
        var xhat: [Float]  // B × D, normalised inputs
        var inverseStd: [Float]  // D
        var activated: [Float]  // B × D, after batch norm (before ReLU)
        var mask: [Float]  // B × D, dropout scale per value (0 or 1 / (1 − rate))
        var dropped: [Float]  // B × D, the Dense layer's input
    }

    /// One training step on a batch (`batch` rows of `inputSize` values, `labels` class
    /// indices): `lossAndGradients`, then one Adam update of every variable. Returns the
    /// batch's mean loss and how many of its samples were classified right.
    mutating func trainStep(
        batch: [Float], labels: [Int], loss: FocalLoss, optimizer: inout AdamOptimizer,
        learningRate: Float, random: inout SeededRandom
    ) -> (loss: Float, correct: Int) {
        let result = lossAndGradients(batch: batch, labels: labels, loss: loss, random: &random)
        for (slot, gradient) in result.gradients.enumerated() {
            withVariable(slot) { optimizer.update(&$0, gradient: gradient, slot: slot, learningRate: learningRate) }
        }
        optimizer.finishStep()
        return (result.loss, result.correct)
    }

    /// The trainable variables, in the order of `lossAndGradients`' gradients: per block, the
    /// dense weights and bias, then the batch norm's gamma and beta.
    mutating func withVariable(_ slot: Int, _ body: (inout [Float]) -> Void) {
        let block = slot / 4
        switch slot % 4 {
        case 0: body(&blocks[block].dense.weights)
        case 1: body(&blocks[block].dense.bias)
        case 2: body(&blocks[block].norm.gamma)
        default: body(&blocks[block].norm.beta)
        }
    }

    /// The forward pass in training mode (batch statistics, dropout; the moving statistics are
    /// updated), the focal loss, and its gradient for every variable (`withVariable`'s order).
    /// Returns the batch's mean loss and how many samples were classified right.
    mutating func lossAndGradients(
        batch: [Float], labels: [Int], loss: FocalLoss, random: inout SeededRandom
    ) -> (loss: Float, correct: Int, gradients: [[Float]]) {
        let count = labels.count
        var x = batch
        var traces: [BlockTrace] = []
        for index in blocks.indices {
            let width = blocks[index].dense.inputs
            var trace = BlockTrace(
                xhat: x, inverseStd: [Float](repeating: 0, count: width), activated: x,
                mask: [Float](repeating: 1, count: x.count), dropped: x)
            for j in 0..<width {
                var mean: Float = 0
                for b in 0..<count { mean += x[b * width + j] }
                mean /= Float(count)
                var variance: Float = 0
                for b in 0..<count {
                    let d = x[b * width + j] - mean
                    variance += d * d
                }
                variance /= Float(count)
                let inverseStd = 1 / (variance + BatchNorm.epsilon).squareRoot()
                trace.inverseStd[j] = inverseStd
                let gamma = blocks[index].norm.gamma[j], beta = blocks[index].norm.beta[j]
                for b in 0..<count {
                    let xhat = (x[b * width + j] - mean) * inverseStd
                    trace.xhat[b * width + j] = xhat
                    trace.activated[b * width + j] = gamma * xhat + beta
                }
                let momentum = BatchNorm.momentum
                blocks[index].norm.movingMean[j] = blocks[index].norm.movingMean[j] * momentum + mean * (1 - momentum)
                blocks[index].norm.movingVariance[j] =
                    blocks[index].norm.movingVariance[j] * momentum + variance * (1 - momentum)
            }
            let keep = 1 - dropoutRate
            for k in trace.activated.indices {
                if dropoutRate > 0 { trace.mask[k] = random.unitFloat() < dropoutRate ? 0 : 1 / keep }
                trace.dropped[k] = max(0, trace.activated[k]) * trace.mask[k]
            }
            var y = [Float](repeating: 0, count: count * blocks[index].dense.outputs)
            let dense = blocks[index].dense
            for b in 0..<count {
                let row = Self.dense(dense, Array(trace.dropped[(b * width)..<((b + 1) * width)]))
                for o in 0..<dense.outputs { y[b * dense.outputs + o] = row[o] }
            }
            traces.append(trace)
            x = y
        }

        // Softmax, loss and its gradient with respect to the logits.
        let classes = classCount
        var gradient = [Float](repeating: 0, count: count * classes)
        var totalLoss: Float = 0
        var correct = 0
        for b in 0..<count {
            let p = Self.softmax(Array(x[(b * classes)..<((b + 1) * classes)]))
            let label = labels[b]
            if p.indices.max(by: { p[$0] < p[$1] }) == label { correct += 1 }
            let (value, slope) = loss.lossAndSlope(p[label])
            totalLoss += value
            // d loss / d logit_j = slope · p_label · (δ_j,label − p_j), averaged over the batch.
            let scale = slope * p[label] / Float(count)
            for j in 0..<classes {
                gradient[b * classes + j] = scale * ((j == label ? 1 : 0) - p[j])
            }
        }

        // Backward through the blocks, last first.
        var gradients = [[Float]](repeating: [], count: 4 * blocks.count)
        var upstream = gradient
        for index in blocks.indices.reversed() {
            let trace = traces[index]
            let dense = blocks[index].dense
            let width = dense.inputs, outputs = dense.outputs
            var weightGradient = [Float](repeating: 0, count: width * outputs)
            var biasGradient = [Float](repeating: 0, count: outputs)
            var droppedGradient = [Float](repeating: 0, count: count * width)
            for b in 0..<count {
                for o in 0..<outputs {
                    let g = upstream[b * outputs + o]
                    guard g != 0 else { continue }
                    biasGradient[o] += g
                    let row = o * width
                    for i in 0..<width {
                        weightGradient[row + i] += g * trace.dropped[b * width + i]
                        droppedGradient[b * width + i] += g * dense.weights[row + i]
                    }
                }
            }
            // Through dropout and ReLU to the batch norm's output, then to its input.
            var gammaGradient = [Float](repeating: 0, count: width)
            var betaGradient = [Float](repeating: 0, count: width)
            var inputGradient = [Float](repeating: 0, count: count * width)
            for j in 0..<width {
                var sumXhatGradient: Float = 0, sumXhatGradientXhat: Float = 0
                var xhatGradients = [Float](repeating: 0, count: count)
                for b in 0..<count {
                    let k = b * width + j
                    let activatedGradient = trace.activated[k] > 0 ? droppedGradient[k] * trace.mask[k] : 0
                    gammaGradient[j] += activatedGradient * trace.xhat[k]
                    betaGradient[j] += activatedGradient
                    let g = activatedGradient * blocks[index].norm.gamma[j]
                    xhatGradients[b] = g
                    sumXhatGradient += g
                    sumXhatGradientXhat += g * trace.xhat[k]
                }
                let n = Float(count)
                for b in 0..<count {
                    let k = b * width + j
                    inputGradient[k] =
                        trace.inverseStd[j] / n * (n * xhatGradients[b] - sumXhatGradient - trace.xhat[k] * sumXhatGradientXhat)
                }
            }
            gradients[4 * index] = weightGradient
            gradients[4 * index + 1] = biasGradient
            gradients[4 * index + 2] = gammaGradient
            gradients[4 * index + 3] = betaGradient
            upstream = inputGradient
        }
        return (totalLoss / Float(count), correct, gradients)
    }
}
