/// How `CustomGestureClassifier.train` builds and trains the classifier: MediaPipe Model Maker's
/// `GestureRecognizerOptions`, whose `model_options` and `hparams` are `modelOptions` and
/// `hyperparameters` here, with Model Maker's defaults.
///
/// ```swift
/// var options = GestureTrainingOptions()
/// options.modelOptions.layerWidths = [64]    // one hidden layer
/// options.hyperparameters.epochs = 20
/// options.hyperparameters.seed = 7           // same seed, same data: the same bundle
/// ```
public struct GestureTrainingOptions: Sendable, Equatable {
    /// The classifier's shape: Model Maker's `GestureRecognizerModelOptions`.
    public struct ModelOptions: Sendable, Equatable {
        /// The fraction of values each dropout layer drops while training, in [0, 1)
        /// (`dropout_rate`, default 0.05).
        public var dropoutRate: Float = 0.05
        /// The widths of the hidden layers, each of BatchNormalization, ReLU, Dropout and Dense
        /// (`layer_widths`, default none: batch normalisation, ReLU, dropout and the output layer).
        public var layerWidths: [Int] = []

        /// Model Maker's defaults.
        public init(dropoutRate: Float = 0.05, layerWidths: [Int] = []) {
            self.dropoutRate = dropoutRate
            self.layerWidths = layerWidths
        }
    }

    /// How the classifier is trained: Model Maker's `HParams`.
    public struct Hyperparameters: Sendable, Equatable {
        /// The Adam optimiser's learning rate in the first epoch (`learning_rate`, default 0.001).
        public var learningRate: Float = 0.001
        /// Samples per training step (`batch_size`, default 2). Each epoch takes as many whole
        /// batches as the training set holds; the few samples left over wait for a later epoch
        /// (with `shuffle`) or are not used (without).
        public var batchSize: Int = 2
        /// Passes over the training set (`epochs`, default 10).
        public var epochs: Int = 10
        /// The learning rate is multiplied by this after every epoch (`lr_decay`, default 0.99).
        public var learningRateDecay: Float = 0.99
        /// The focal loss' focusing parameter γ (`gamma`, default 2; 0 is cross-entropy).
        public var gamma: Float = 2
        /// Whether the training set is shuffled anew every epoch, as TensorFlow's
        /// `shuffle(3 · batch_size)` does (`shuffle`, default false, as in Model Maker; the
        /// dataset's order is already random after `GestureDataset.split`).
        public var shuffle: Bool = false
        /// The seed of every random choice: weights, dropout, shuffling (VisionTasks' addition;
        /// Model Maker's runs differ from run to run). The same seed and data give the same
        /// classifier, byte for byte.
        public var seed: UInt64 = 0

        /// Model Maker's defaults.
        public init(
            learningRate: Float = 0.001, batchSize: Int = 2, epochs: Int = 10, learningRateDecay: Float = 0.99,
            gamma: Float = 2, shuffle: Bool = false, seed: UInt64 = 0
        ) {
            self.learningRate = learningRate
            self.batchSize = batchSize
            self.epochs = epochs
            self.learningRateDecay = learningRateDecay
            self.gamma = gamma
            self.shuffle = shuffle
            self.seed = seed
        }
    }

    /// The classifier's shape.
    public var modelOptions = ModelOptions()
    /// How it is trained.
    public var hyperparameters = Hyperparameters()

    /// Model Maker's defaults.
    public init(modelOptions: ModelOptions = ModelOptions(), hyperparameters: Hyperparameters = Hyperparameters()) {
        self.modelOptions = modelOptions
        self.hyperparameters = hyperparameters
    }

    /// Throws `GestureTrainingError.invalidOption` for a value training cannot use: a learning
    /// rate that is not a positive number, fewer than one epoch or sample per batch, a dropout
    /// rate outside [0, 1), a hidden width below 1, a decay that is not a positive number, a
    /// negative or non-finite γ.
    public func validate() throws {
        let h = hyperparameters, m = modelOptions
        func fail(_ name: String, _ value: String, _ rule: String) -> GestureTrainingError {
            .invalidOption(name: name, value: value, requirement: rule)
        }
        guard h.learningRate.isFinite, h.learningRate > 0 else {
            throw fail("learningRate", "\(h.learningRate)", "a number greater than 0, such as 0.001")
        }
        guard h.epochs >= 1 else { throw fail("epochs", "\(h.epochs)", "at least 1") }
        guard h.batchSize >= 1 else { throw fail("batchSize", "\(h.batchSize)", "at least 1") }
        guard h.learningRateDecay.isFinite, h.learningRateDecay > 0 else {
            throw fail("learningRateDecay", "\(h.learningRateDecay)", "a number greater than 0, such as 0.99")
        }
        guard h.gamma.isFinite, h.gamma >= 0 else { throw fail("gamma", "\(h.gamma)", "a number of at least 0") }
        guard m.dropoutRate.isFinite, m.dropoutRate >= 0, m.dropoutRate < 1 else {
            throw fail("dropoutRate", "\(m.dropoutRate)", "at least 0 and below 1")
        }
        if let width = m.layerWidths.first(where: { $0 < 1 || $0 > 1 << 16 }) {
            throw fail("layerWidths", "\(width)", "each width from 1 to 65536")
        }
    }
}
