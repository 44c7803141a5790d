/// The metadata a model may carry in its `TFLITE_METADATA` buffer (TFLite Support's
/// `metadata_schema.fbs`, identifier "M001"): names, descriptions, input normalisation and
/// the files (labels) packed in the zip archive appended to the model.
public struct ModelMetadata: Sendable, Equatable {
    public var name: String?
    public var description: String?
    public var version: String?
    public var author: String?
    public var license: String?
    /// The oldest metadata parser version that understands this metadata.
    public var minParserVersion: String?
    /// Metadata of the first subgraph's inputs, in input order.
    public var inputTensors: [TensorMetadata]
    /// Metadata of the first subgraph's outputs, in output order.
    public var outputTensors: [TensorMetadata]
    /// Files attached to the model or its subgraph (tensor files are on the tensors).
    public var associatedFiles: [AssociatedFile]

    public init(name: String? = nil, description: String? = nil, version: String? = nil,
                author: String? = nil, license: String? = nil, minParserVersion: String? = nil,
                inputTensors: [TensorMetadata] = [], outputTensors: [TensorMetadata] = [],
                associatedFiles: [AssociatedFile] = []) {
        self.name = name
        self.description = description
        self.version = version
        self.author = author
        self.license = license
        self.minParserVersion = minParserVersion
        self.inputTensors = inputTensors
        self.outputTensors = outputTensors
        self.associatedFiles = associatedFiles
    }
}

/// Metadata of one input or output tensor.
public struct TensorMetadata: Sendable, Equatable {
    public var name: String?
    public var description: String?
    /// How raw values are mapped to the model's input: `(value - mean[c]) / std[c]`.
    public var normalization: NormalizationParameters?
    /// Files for this tensor, e.g. `labels.txt` (`TENSOR_AXIS_LABELS`) for scores.
    public var associatedFiles: [AssociatedFile]
    /// The recommended score threshold of a classification output (`ScoreThresholdingOptions`'
    /// `global_score_threshold`), or nil when the tensor has none.
    public var scoreThreshold: Float?

    public init(name: String? = nil, description: String? = nil,
                normalization: NormalizationParameters? = nil, associatedFiles: [AssociatedFile] = [],
                scoreThreshold: Float? = nil) {
        self.name = name
        self.description = description
        self.normalization = normalization
        self.associatedFiles = associatedFiles
        self.scoreThreshold = scoreThreshold
    }
}

/// Input normalisation: `normalized = (value - mean) / std`, per channel (one value = all channels).
public struct NormalizationParameters: Sendable, Equatable {
    public var mean: [Float]
    public var std: [Float]

    public init(mean: [Float], std: [Float]) {
        self.mean = mean
        self.std = std
    }
}

/// A file packed with the model (in the zip archive appended to the `.tflite`).
public struct AssociatedFile: Sendable, Equatable {
    /// What the file holds (`AssociatedFileType`).
    public enum Kind: Sendable, Equatable {
        case unknown
        case descriptions
        case tensorAxisLabels
        case tensorValueLabels
        case tensorAxisScoreCalibration
        case vocabulary
        case scannIndexFile
        case other(code: Int)

        init(code: Int) {
            switch code {
            case 0: self = .unknown
            case 1: self = .descriptions
            case 2: self = .tensorAxisLabels
            case 3: self = .tensorValueLabels
            case 4: self = .tensorAxisScoreCalibration
            case 5: self = .vocabulary
            case 6: self = .scannIndexFile
            default: self = .other(code: code)
            }
        }
    }

    public var name: String
    public var description: String?
    public var kind: Kind
    public var locale: String?

    public init(name: String, description: String? = nil, kind: Kind = .unknown, locale: String? = nil) {
        self.name = name
        self.description = description
        self.kind = kind
        self.locale = locale
    }
}
