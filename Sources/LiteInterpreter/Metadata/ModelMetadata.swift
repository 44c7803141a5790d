/// The metadata a model may carry in its `TFLITE_METADATA` buffer (TFLite Support's
/// `metadata_schema.fbs`, identifier "M001"): names, descriptions, input normalisation and
/// the files (labels) packed in the zip archive appended to the model.
public struct ModelMetadata: Sendable, Equatable {
    /// The model's name.
    public var name: String?
    /// What the model does.
    public var description: String?
    /// The model's version.
    public var version: String?
    /// Who made the model.
    public var author: String?
    /// The model's licence.
    public var license: String?
    /// The oldest metadata parser version that understands this metadata.
    public var minParserVersion: String?
    /// Metadata of the first subgraph's inputs, in input order.
    public var inputTensors: [TensorMetadata]
    /// Metadata of the first subgraph's outputs, in output order.
    public var outputTensors: [TensorMetadata]
    /// Files attached to the model or its subgraph (tensor files are on the tensors).
    public var associatedFiles: [AssociatedFile]

    /// Metadata from its parts.
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
    /// The tensor's name in the metadata (may differ from the model's tensor name).
    public var name: String?
    /// What the tensor holds.
    public var description: String?
    /// How raw values are mapped to the model's input: `(value - mean[c]) / std[c]`.
    public var normalization: NormalizationParameters?
    /// Files for this tensor, e.g. `labels.txt` (`TENSOR_AXIS_LABELS`) for scores.
    public var associatedFiles: [AssociatedFile]
    /// The recommended score threshold of a classification output (`ScoreThresholdingOptions`'
    /// `global_score_threshold`), or nil when the tensor has none.
    public var scoreThreshold: Float?
    /// What kind of values the tensor holds (`Content.content_properties`), or nil when not said.
    public var content: TensorContent?
    /// The range of the tensor's values (`Stats`), or nil when not said.
    public var stats: TensorStats?

    /// Tensor metadata from its parts.
    public init(name: String? = nil, description: String? = nil,
                normalization: NormalizationParameters? = nil, associatedFiles: [AssociatedFile] = [],
                scoreThreshold: Float? = nil, content: TensorContent? = nil, stats: TensorStats? = nil) {
        self.name = name
        self.description = description
        self.normalization = normalization
        self.associatedFiles = associatedFiles
        self.scoreThreshold = scoreThreshold
        self.content = content
        self.stats = stats
    }
}

/// What kind of values a tensor holds (the `ContentProperties` union of the metadata schema).
public enum TensorContent: Sendable, Equatable {
    /// `FeatureProperties`: a feature vector, such as an embedding or class scores.
    case features
    /// `ImageProperties`: an image.
    case image
    /// `BoundingBoxProperties`: bounding boxes.
    case boundingBoxes
    /// `AudioProperties`: audio samples.
    case audio
    /// A union type code this library has no name for.
    case other(code: Int)

    init(code: Int) {
        switch code {
        case 1: self = .features
        case 2: self = .image
        case 3: self = .boundingBoxes
        case 4: self = .audio
        default: self = .other(code: code)
        }
    }

    /// The union's type code in the schema.
    var code: Int {
        switch self {
        case .features: return 1
        case .image: return 2
        case .boundingBoxes: return 3
        case .audio: return 4
        case .other(let code): return code
        }
    }
}

/// The range of a tensor's values (the metadata schema's `Stats`), per channel; one value
/// stands for every channel.
public struct TensorStats: Sendable, Equatable {
    /// The largest values.
    public var max: [Float]
    /// The smallest values.
    public var min: [Float]

    /// Statistics from their parts.
    public init(max: [Float], min: [Float]) {
        self.max = max
        self.min = min
    }
}

/// Input normalisation: `normalized = (value - mean) / std`, per channel (one value = all channels).
public struct NormalizationParameters: Sendable, Equatable {
    /// Per-channel means (one value for all channels).
    public var mean: [Float]
    /// Per-channel standard deviations (one value for all channels).
    public var std: [Float]

    /// Parameters from their parts.
    public init(mean: [Float], std: [Float]) {
        self.mean = mean
        self.std = std
    }
}

/// A file packed with the model (in the zip archive appended to the `.tflite`).
public struct AssociatedFile: Sendable, Equatable {
    /// What the file holds (`AssociatedFileType`).
    public enum Kind: Sendable, Equatable {
        /// `UNKNOWN`.
        case unknown
        /// `DESCRIPTIONS`: descriptions of the model or its tensors.
        case descriptions
        /// `TENSOR_AXIS_LABELS`: one label per line for the classes along a tensor axis.
        case tensorAxisLabels
        /// `TENSOR_VALUE_LABELS`: labels for a tensor's values (e.g. segmentation classes).
        case tensorValueLabels
        /// `TENSOR_AXIS_SCORE_CALIBRATION`: score calibration parameters per class.
        case tensorAxisScoreCalibration
        /// `VOCABULARY`: a tokenizer's vocabulary.
        case vocabulary
        /// `SCANN_INDEX_FILE`: a ScaNN search index.
        case scannIndexFile
        /// A type code this library has no name for.
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

        /// The schema's `AssociatedFileType` code.
        var code: Int {
            switch self {
            case .unknown: return 0
            case .descriptions: return 1
            case .tensorAxisLabels: return 2
            case .tensorValueLabels: return 3
            case .tensorAxisScoreCalibration: return 4
            case .vocabulary: return 5
            case .scannIndexFile: return 6
            case .other(let code): return code
            }
        }
    }

    /// The file's name in the archive, e.g. `labels.txt`.
    public var name: String
    /// What the file holds, in words.
    public var description: String?
    /// What the file holds.
    public var kind: Kind
    /// The language of the file's text (labels in several languages come as several files).
    public var locale: String?

    /// A file description from its parts.
    public init(name: String, description: String? = nil, kind: Kind = .unknown, locale: String? = nil) {
        self.name = name
        self.description = description
        self.kind = kind
        self.locale = locale
    }
}
