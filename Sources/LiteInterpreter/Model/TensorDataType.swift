/// The element type of a tensor, as TensorFlow Lite's `TensorType` names it.
public enum TensorDataType: Sendable, Hashable, CustomStringConvertible {
    /// 32-bit float (the only type this interpreter computes in).
    case float32
    /// 16-bit float.
    case float16
    /// 64-bit float.
    case float64
    /// Signed 8-bit integer.
    case int8
    /// Unsigned 8-bit integer.
    case uint8
    /// Signed 16-bit integer.
    case int16
    /// Signed 32-bit integer.
    case int32
    /// Signed 64-bit integer.
    case int64
    /// Boolean.
    case bool
    /// String (TensorFlow Lite's packed string format).
    case string
    /// A type code this library has no name for.
    case other(code: Int)

    /// Maps the schema's `TensorType` code.
    init(code: Int) {
        switch code {
        case 0: self = .float32
        case 1: self = .float16
        case 2: self = .int32
        case 3: self = .uint8
        case 4: self = .int64
        case 5: self = .string
        case 6: self = .bool
        case 7: self = .int16
        case 9: self = .int8
        case 10: self = .float64
        default: self = .other(code: code)
        }
    }

    /// The schema's `TensorType` code (the inverse of `init(code:)`).
    var code: Int {
        switch self {
        case .float32: return 0
        case .float16: return 1
        case .int32: return 2
        case .uint8: return 3
        case .int64: return 4
        case .string: return 5
        case .bool: return 6
        case .int16: return 7
        case .int8: return 9
        case .float64: return 10
        case .other(let code): return code
        }
    }

    /// Bytes per element (nil for strings and unknown types).
    public var byteSize: Int? {
        switch self {
        case .float32, .int32: return 4
        case .float16, .int16: return 2
        case .float64, .int64: return 8
        case .int8, .uint8, .bool: return 1
        case .string, .other: return nil
        }
    }

    public var description: String {
        switch self {
        case .float32: return "float32"
        case .float16: return "float16"
        case .float64: return "float64"
        case .int8: return "int8"
        case .uint8: return "uint8"
        case .int16: return "int16"
        case .int32: return "int32"
        case .int64: return "int64"
        case .bool: return "bool"
        case .string: return "string"
        case let .other(code): return "type code \(code)"
        }
    }
}
