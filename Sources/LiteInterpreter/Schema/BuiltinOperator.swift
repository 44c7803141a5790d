/// TensorFlow Lite builtin operator codes (`BuiltinOperator` in TFLite's `schema.fbs`).
///
/// Only the operators the interpreter runs have cases; `name(of:)` knows every code the
/// schema defines, for error messages and `model info`.
enum BuiltinOperator: Int32, Sendable {
    case add = 0
    case concatenation = 2
    case conv2D = 3
    case depthwiseConv2D = 4
    case depthToSpace = 5
    case dequantize = 6
    case fullyConnected = 9
    case logistic = 14
    case maxPool2D = 17
    case mul = 18
    case relu = 19
    case reluN1To1 = 20
    case relu6 = 21
    case reshape = 22
    case resizeBilinear = 23
    case softmax = 25
    case tanh = 28
    case pad = 34
    case gather = 36
    case mean = 40
    case sub = 41
    case div = 42
    case stridedSlice = 45
    case prelu = 54
    case maximum = 55
    case minimum = 57
    case reduceMax = 82
    case unpack = 88
    case reduceMin = 89
    case densify = 124

    /// The schema's name for any builtin code ("CUSTOM", "HARD_SWISH", ...), or "UNKNOWN".
    static func name(of code: Int32) -> String {
        guard code >= 0, Int(code) < names.count, !names[Int(code)].isEmpty else { return "UNKNOWN" }
        return names[Int(code)]
    }

    var name: String { BuiltinOperator.name(of: rawValue) }

    private static let names: [String] = [
        "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE",
        "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION",
        "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D",
        "MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR",
        "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS",
        "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN",
        "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB",
        "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP",
        "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST",
        "PRELU", "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS", "NEG",
        "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE",
        "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL",
        "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT", "SHAPE",
        "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK",
        "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN",
        "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD",
        "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS",
        "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND",
        "COS", "WHERE", "RANK", "ELU", "REVERSE_SEQUENCE", "MATRIX_DIAG",
        "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF", "WHILE",
        "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2", "DENSIFY", "SEGMENT_SUM",
        "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D",
        "CONV_3D", "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND",
        "HASHTABLE_IMPORT", "HASHTABLE_SIZE", "REDUCE_ALL", "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE",
        "ASSIGN_VARIABLE", "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL", "BUCKETIZE", "RANDOM_UNIFORM", "MULTINOMIAL",
        "GELU", "DYNAMIC_UPDATE_SLICE", "RELU_0_TO_1", "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM",
        "ATAN2", "UNSORTED_SEGMENT_MIN", "SIGN", "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT",
        "STABLEHLO_LOGISTIC", "STABLEHLO_ADD", "STABLEHLO_DIVIDE", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM", "STABLEHLO_RESHAPE",
        "STABLEHLO_CLAMP", "STABLEHLO_CONCATENATE", "STABLEHLO_BROADCAST_IN_DIM", "STABLEHLO_CONVOLUTION", "STABLEHLO_SLICE", "STABLEHLO_CUSTOM_CALL",
        "STABLEHLO_REDUCE", "STABLEHLO_ABS", "STABLEHLO_AND", "STABLEHLO_COSINE", "STABLEHLO_EXPONENTIAL", "STABLEHLO_FLOOR",
        "STABLEHLO_LOG", "STABLEHLO_MINIMUM", "STABLEHLO_NEGATE", "STABLEHLO_OR", "STABLEHLO_POWER", "STABLEHLO_REMAINDER",
        "STABLEHLO_RSQRT", "STABLEHLO_SELECT", "STABLEHLO_SUBTRACT", "STABLEHLO_TANH", "STABLEHLO_SCATTER", "STABLEHLO_COMPARE",
        "STABLEHLO_CONVERT", "STABLEHLO_DYNAMIC_SLICE", "STABLEHLO_DYNAMIC_UPDATE_SLICE", "STABLEHLO_PAD", "STABLEHLO_IOTA", "STABLEHLO_DOT_GENERAL",
        "STABLEHLO_REDUCE_WINDOW", "STABLEHLO_SORT", "STABLEHLO_WHILE", "STABLEHLO_GATHER", "STABLEHLO_TRANSPOSE", "DILATE",
        "STABLEHLO_RNG_BIT_GENERATOR", "REDUCE_WINDOW", "STABLEHLO_COMPOSITE", "STABLEHLO_SHIFT_LEFT", "STABLEHLO_CBRT", "STABLEHLO_CASE",
    ]
}
