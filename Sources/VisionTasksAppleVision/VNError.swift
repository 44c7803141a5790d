import Foundation

/// Vision's error codes (`VNErrorCode`), with their raw values.
public enum VNErrorCode: Int, Sendable {
    case tuningFailure = -1
    case OK = 0
    case requestCancelled = 1
    case invalidFormat = 2
    case operationFailed = 3
    case outOfBoundsError = 4
    case invalidOption = 5
    case ioError = 6
    case missingOption = 7
    case notImplemented = 8
    case internalError = 9
    case outOfMemory = 10
    case unknownError = 11
    case invalidOperation = 12
    case invalidImage = 13
    case invalidArgument = 14
    case invalidModel = 15
    case unsupportedRevision = 16
    case dataUnavailable = 17
    case timeStampNotFound = 18
    case unsupportedRequest = 19
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
