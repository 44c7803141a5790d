/// One frame's outcome in live-stream mode: the task's result (or the error that processing
/// the frame raised) and the timestamp the frame was sent with. Delivered to the task's
/// live-stream delegate and to its `AsyncStream` of results, in timestamp order.
public struct LiveStreamResult<Value: Sendable>: Sendable {
    /// The timestamp passed with the frame to the task's async method.
    public let timestampInMilliseconds: Int
    /// The result, or the error processing the frame raised.
    public let outcome: Result<Value, TasksError>

    /// A result from its parts.
    public init(timestampInMilliseconds: Int, outcome: Result<Value, TasksError>) {
        self.timestampInMilliseconds = timestampInMilliseconds
        self.outcome = outcome
    }

    /// The result, or nil when processing failed.
    public var value: Value? {
        if case .success(let value) = outcome { return value }
        return nil
    }

    /// The error, or nil on success.
    public var error: TasksError? {
        if case .failure(let error) = outcome { return error }
        return nil
    }
}
