/// Why a model file could not be read or prepared. Every case says what is wrong and where.
public enum ModelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be read from disk.
    case unreadableFile(path: String, reason: String)
    /// The flatbuffer structure is broken (truncated, offsets or sizes out of range, wrong
    /// file identifier).
    case malformed(String)
    /// The structure is readable but its content is inconsistent (indices out of range,
    /// shapes that do not fit the operator, cycles in the graph, absurd sizes).
    case invalid(String)
    /// An operator the interpreter does not implement.
    case unsupportedOperator(index: Int, name: String, code: Int)
    /// A feature the interpreter does not implement (a tensor type, an operator option...).
    case unsupported(String)
    /// The `TFLITE_METADATA` buffer or the zip archive appended to the model is broken.
    case malformedMetadata(String)

    public var description: String {
        switch self {
        case let .unreadableFile(path, reason): return "cannot read model file \(path): \(reason)"
        case let .malformed(message): return "malformed model file: \(message)"
        case let .invalid(message): return "invalid model: \(message)"
        case let .unsupportedOperator(index, name, code):
            return "operator \(index): unsupported builtin operator \(name) (code \(code))"
        case let .unsupported(message): return "unsupported model feature: \(message)"
        case let .malformedMetadata(message): return "malformed model metadata: \(message)"
        }
    }
}
