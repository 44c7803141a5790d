/// Why an `Interpreter` call failed.
public enum InterpreterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An input or output index outside the model's inputs or outputs.
    case invalidTensorIndex(index: Int, count: Int, role: String)
    /// Data whose size does not match the tensor (sizes in bytes).
    case invalidDataSize(index: Int, expectedBytes: Int, givenBytes: Int)
    /// A thread count below 1 or above `Interpreter.Options.maximumThreadCount`.
    case invalidThreadCount(Int)
    /// The worker threads could not be started.
    case threadPoolUnavailable(threadCount: Int)
    /// A bug in the interpreter (please report it with the model file).
    case internalInconsistency(String)

    public var description: String {
        switch self {
        case let .invalidTensorIndex(index, count, role):
            return "\(role) index \(index) is out of range (the model has \(count) \(role)s)"
        case let .invalidDataSize(index, expected, given):
            return "input \(index) takes \(expected) bytes (\(expected / 4) float32 values) but \(given) bytes (\(given / 4) values) were given"
        case let .invalidThreadCount(count):
            return "thread count must be between 1 and \(Interpreter.Options.maximumThreadCount) (4 per active core), got \(count)"
        case let .threadPoolUnavailable(count):
            return "cannot start \(count) worker threads"
        case let .internalInconsistency(message):
            return "internal interpreter error: \(message)"
        }
    }
}
