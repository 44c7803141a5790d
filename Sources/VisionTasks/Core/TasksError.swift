import Foundation

/// The error codes of MediaPipe Tasks (`MPPTasksErrorCode`), with the same raw values.
public enum TasksErrorCode: Int, Sendable, CaseIterable {
    /// `TasksError.cancelled`: the operation was cancelled.
    case cancelledError = 1
    /// `TasksError.unknown`: an error of no other kind.
    case unknownError = 2
    /// `TasksError.invalidArgument` and `.nonMonotonicTimestamp`: bad input (options,
    /// arguments, images, model files, timestamps).
    case invalidArgumentError = 3
    /// `TasksError.deadlineExceeded`: the operation did not finish in time.
    case deadlineExceededError = 4
    /// `TasksError.notFound`: a file or resource does not exist.
    case notFoundError = 5
    /// `TasksError.alreadyExists`: what was to be created already exists.
    case alreadyExistsError = 6
    /// `TasksError.permissionDenied`: the caller may not do this.
    case permissionDeniedError = 7
    /// `TasksError.resourceExhausted`: out of a resource, such as memory.
    case resourceExhaustedError = 8
    /// `TasksError.failedPrecondition`: the task is not in a state to do this.
    case failedPreconditionError = 9
    /// `TasksError.aborted`: the operation was aborted.
    case abortedError = 10
    /// `TasksError.outOfRange`: a value is outside its valid range.
    case outOfRangeError = 11
    /// `TasksError.unimplemented`: a feature that VisionTasks does not provide.
    case unimplementedError = 12
    /// `TasksError.internalError`: a bug or broken invariant inside VisionTasks.
    case internalError = 13
    /// `TasksError.unavailable`: a service is not available.
    case unavailableError = 14
    /// `TasksError.dataLoss`: data was lost or corrupted.
    case dataLossError = 15
    /// `TasksError.unauthenticated`: the caller is not authenticated.
    case unauthenticatedError = 16
}

/// An error from a vision task. The cases mirror MediaPipe's `MPPTasksErrorCode`; each carries
/// a message that says what was wrong. `code` gives the MediaPipe code, and as an `NSError`
/// the error has MediaPipe's domain (`com.google.mediapipe.tasks`) and code.
public enum TasksError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError,
    CustomNSError
{
    /// The operation was cancelled.
    case cancelled(String)
    /// An error of no other kind.
    case unknown(String)
    /// Bad input: options, arguments, images, model files.
    case invalidArgument(String)
    /// The operation did not finish in time.
    case deadlineExceeded(String)
    /// A file or resource does not exist.
    case notFound(String)
    /// What was to be created already exists.
    case alreadyExists(String)
    /// The caller may not do this.
    case permissionDenied(String)
    /// Out of a resource, such as memory.
    case resourceExhausted(String)
    /// The task is not in a state to do this.
    case failedPrecondition(String)
    /// The operation was aborted.
    case aborted(String)
    /// A value is outside its valid range.
    case outOfRange(String)
    /// A feature that VisionTasks does not provide (such as the GPU delegate).
    case unimplemented(String)
    /// A bug or broken invariant inside VisionTasks.
    case internalError(String)
    /// A service is not available.
    case unavailable(String)
    /// Data was lost or corrupted.
    case dataLoss(String)
    /// The caller is not authenticated.
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

    /// The message.
    public var description: String { message }
    /// The message (`LocalizedError`, `NSError.localizedDescription`).
    public var errorDescription: String? { message }

    /// MediaPipe's error domain.
    public static var errorDomain: String { "com.google.mediapipe.tasks" }
    /// `code`'s raw value, the `NSError` code.
    public var errorCode: Int { code.rawValue }
    /// The message under `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
}
