import Foundation
import HTTPTypes
import Hummingbird

/// An error the server answers a client with: a code for programs, a sentence for people and
/// the HTTP status. Encoded as `{"error": {"code": "...", "message": "..."}}` in HTTP answers
/// and as `{"type": "error", "error": {...}}` on live sessions.
struct ServerError: Error, Sendable, Equatable, HTTPResponseError {
    /// Machine-readable kinds of error.
    enum Code: String, Sendable, Codable {
        /// An option's name or value is wrong.
        case badOption
        /// The bytes are not a JPEG or PNG, or are damaged or truncated.
        case badImage
        /// The image has more bytes or pixels than the server's limits allow.
        case imageTooLarge
        /// A live message is not a frame or an options message.
        case badMessage
        /// The server already has its maximum number of live sessions.
        case tooManySessions
        /// The server already has its maximum number of HTTP task requests in progress.
        case serverBusy
        /// The task refused the frame (e.g. a timestamp not after the previous one).
        case taskFailed
        /// No such task or route.
        case notFound
        /// A task route asked with another method than POST.
        case methodNotAllowed
        /// A request's body did not arrive within `ServerLimits.maxBodyDuration`.
        case requestTimeout
    }

    var code: Code
    var message: String

    var status: HTTPResponse.Status {
        switch code {
        case .badOption, .badImage, .badMessage, .taskFailed: return .badRequest
        case .imageTooLarge: return .contentTooLarge
        case .tooManySessions, .serverBusy: return .serviceUnavailable
        case .notFound: return .notFound
        case .methodNotAllowed: return .methodNotAllowed
        case .requestTimeout: return .requestTimeout
        }
    }

    /// The JSON body of HTTP answers.
    var body: Data {
        (try? JSONEncoder().encode(["error": ["code": code.rawValue, "message": message]])) ?? Data()
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if code == .methodNotAllowed { headers[.allow] = "POST" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
