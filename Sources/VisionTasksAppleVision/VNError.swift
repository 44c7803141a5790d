import Foundation

/// Vision's error codes (`VNErrorCode`), with their raw values.
public enum VNErrorCode: Int, Sendable {
    /// A tuning failure.
    case tuningFailure = -1
    /// No error.
    case OK = 0
    /// The request was cancelled.
    case requestCancelled = 1
    /// A format is invalid.
    case invalidFormat = 2
    /// An operation failed.
    case operationFailed = 3
    /// A value is out of bounds.
    case outOfBoundsError = 4
    /// An option is invalid (e.g. `maximumHandCount` < 1).
    case invalidOption = 5
    /// Input or output failed.
    case ioError = 6
    /// An option is missing.
    case missingOption = 7
    /// Not implemented.
    case notImplemented = 8
    /// An internal error.
    case internalError = 9
    /// Out of memory.
    case outOfMemory = 10
    /// An unknown error.
    case unknownError = 11
    /// The operation is invalid.
    case invalidOperation = 12
    /// The image cannot be read or decoded.
    case invalidImage = 13
    /// An argument is invalid (e.g. an unknown joint name).
    case invalidArgument = 14
    /// The model is missing or cannot be loaded.
    case invalidModel = 15
    /// The request revision is not supported.
    case unsupportedRevision = 16
    /// Data is unavailable.
    case dataUnavailable = 17
    /// A timestamp was not found.
    case timeStampNotFound = 18
    /// The request is not supported.
    case unsupportedRequest = 19
    /// A timeout.
    case timeout = 20
}

/// The domain of Vision's errors.
public let VNErrorDomain = "com.apple.Vision"

/// An error thrown by the Vision façade, as Vision's `NSError`s in `VNErrorDomain`: a code and
/// a message saying what was wrong (a bad image, an unknown joint name, a model that cannot
/// be loaded, ...).
public struct VNError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError, CustomNSError {
    /// What kind of failure.
    public let code: VNErrorCode
    /// What was wrong.
    public let message: String

    /// An error with a code and a message.
    public init(_ code: VNErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
    /// The message.
    public var errorDescription: String? { message }
    /// `VNErrorDomain`.
    public static var errorDomain: String { VNErrorDomain }
    /// The code's raw value.
    public var errorCode: Int { code.rawValue }
    /// The message under `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
}
