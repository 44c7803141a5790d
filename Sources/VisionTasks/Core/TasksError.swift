import Foundation

/// The error codes of MediaPipe Tasks (`MPPTasksErrorCode`), with the same raw values.
public enum TasksErrorCode: Int, Sendable, CaseIterable {
    case cancelledError = 1
    case unknownError = 2
    case invalidArgumentError = 3
    case deadlineExceededError = 4
    case notFoundError = 5
    case alreadyExistsError = 6
    case permissionDeniedError = 7
    case resourceExhaustedError = 8
    case failedPreconditionError = 9
    case abortedError = 10
    case outOfRangeError = 11
    case unimplementedError = 12
    case internalError = 13
    case unavailableError = 14
    case dataLossError = 15
    case unauthenticatedError = 16
}

/// An error from a vision task. The cases mirror MediaPipe's `MPPTasksErrorCode`; each carries
/// a message that says what was wrong. `code` gives the MediaPipe code, and as an `NSError`
/// the error has MediaPipe's domain (`com.google.mediapipe.tasks`) and code.
public enum TasksError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError,
    CustomNSError
{
    case cancelled(String)
    case unknown(String)
    /// Bad input: options, arguments, images, model files.
    case invalidArgument(String)
    case deadlineExceeded(String)
    /// A file or resource does not exist.
    case notFound(String)
    case alreadyExists(String)
    case permissionDenied(String)
    case resourceExhausted(String)
    /// The task is not in a state to do this.
    case failedPrecondition(String)
    case aborted(String)
    case outOfRange(String)
    /// A feature that VisionTasks does not provide (such as the GPU delegate).
    case unimplemented(String)
    /// A bug or broken invariant inside VisionTasks.
    case internalError(String)
    case unavailable(String)
    case dataLoss(String)
    case unauthenticated(String)
    /// Video or live-stream input whose timestamp is not greater than the previous frame's.
    /// MediaPipe reports this as INVALID_ARGUMENT ("Input timestamp must be monotonically
    /// increasing."); `code` is `.invalidArgumentError` here too. The task stays usable: the
    /// frame is rejected and the next frame with a larger timestamp is processed normally.
    case nonMonotonicTimestamp(previousMilliseconds: Int, receivedMilliseconds: Int)

    /// MediaPipe's error code for this error.
    public var code: TasksErrorCode {
        switch self {
        case .cancelled: return .cancelledError
        case .unknown: return .unknownError
        case .invalidArgument, .nonMonotonicTimestamp: return .invalidArgumentError
        case .deadlineExceeded: return .deadlineExceededError
        case .notFound: return .notFoundError
        case .alreadyExists: return .alreadyExistsError
        case .permissionDenied: return .permissionDeniedError
        case .resourceExhausted: return .resourceExhaustedError
        case .failedPrecondition: return .failedPreconditionError
        case .aborted: return .abortedError
        case .outOfRange: return .outOfRangeError
        case .unimplemented: return .unimplementedError
        case .internalError: return .internalError
        case .unavailable: return .unavailableError
        case .dataLoss: return .dataLossError
        case .unauthenticated: return .unauthenticatedError
        }
    }

    /// What went wrong.
    public var message: String {
        switch self {
        case .cancelled(let m), .unknown(let m), .invalidArgument(let m), .deadlineExceeded(let m),
            .notFound(let m), .alreadyExists(let m), .permissionDenied(let m),
            .resourceExhausted(let m), .failedPrecondition(let m), .aborted(let m),
            .outOfRange(let m), .unimplemented(let m), .internalError(let m), .unavailable(let m),
            .dataLoss(let m), .unauthenticated(let m):
            return m
        case .nonMonotonicTimestamp(let previous, let received):
            return
                "Input timestamp must be monotonically increasing: got \(received) ms after \(previous) ms."
        }
    }

    public var description: String { message }
    public var errorDescription: String? { message }

    /// MediaPipe's error domain.
    public static var errorDomain: String { "com.google.mediapipe.tasks" }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
}
