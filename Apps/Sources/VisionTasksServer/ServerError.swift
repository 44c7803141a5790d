import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An error the server answers a client with: a code for programs, a sentence for people and
/// the HTTP status. Encoded as `{"error": {"code": "...", "message": "..."}}` in HTTP answers
/// and as `{"type": "error", "error": {...}}` on live sessions.
///
/// It renders its own HTTP response (`response(from:context:)`, Hummingbird's
/// `HTTPResponseError`): the status, the JSON body and the headers its code calls for
/// (`Retry-After`, `Allow`, `Connection: close`). Connection-level answers written before
/// any HTTP handler runs (a header timeout, a refused connection) use the same rendering as
/// raw bytes (`rawResponse(instance:)`).
struct ServerError: Error, Sendable, Equatable, HTTPResponseError {
    /// Machine-readable kinds of error.
    enum Code: String, Sendable, Codable, CaseIterable {
        /// An option's name or value is wrong.
        case badOption
        /// The bytes are not a JPEG or PNG, or are damaged or truncated.
        case badImage
        /// The image has more bytes or pixels than the server's limits allow.
        case imageTooLarge
        /// A live message is not a frame or an options message.
        case badMessage
        /// A workout's samples cannot be used (not ML Kit's CSV, one class, too few samples).
        case badSamples
        /// The server already has its maximum number of live sessions.
        case tooManySessions
        /// The server already has its maximum number of HTTP task requests in progress.
        case serverBusy
        /// The task refused the frame (e.g. a timestamp not after the previous one).
        case taskFailed
        /// A teach request cannot be done now: training without `none` or with one label, too
        /// few samples, a limit of `ServerLimits` reached, recording outside a gesture session.
        case teachFailed
        /// No such task or route.
        case notFound
        /// The route exists, but not for this method.
        case methodNotAllowed
        /// A request's head or body did not arrive in time.
        case requestTimeout
        /// The `Host` or `Origin` is not one of the server's own.
        case forbidden
        /// The request is not well-formed HTTP/1.1 (its line, a header, its length).
        case badRequest
        /// The request line (the URL) is longer than the server reads.
        case uriTooLong
        /// The request's headers are too many or too long.
        case headersTooLarge
        /// Every connection the server keeps is busy.
        case tooManyConnections
        /// The server is shutting down and takes no new requests or sessions.
        case shuttingDown
        /// `GET /readyz`: the server takes no new work now; `reason` says why (`ServerReadiness`).
        case notReady
    }

    var code: Code
    var message: String
    /// The methods the route takes (`methodNotAllowed`), for the `Allow` header.
    var allowedMethods: [HTTPRequest.Method] = []
    /// A word for programs beside the code (`notReady`: `starting`, `draining`, `noFreeSession`),
    /// encoded as the error's `reason` when present.
    var reason: String?

    var status: HTTPResponse.Status {
        switch code {
        case .badOption, .badImage, .badMessage, .badSamples, .taskFailed, .teachFailed, .badRequest: return .badRequest
        case .imageTooLarge: return .contentTooLarge
        case .tooManySessions, .serverBusy, .tooManyConnections, .shuttingDown, .notReady: return .serviceUnavailable
        case .notFound: return .notFound
        case .methodNotAllowed: return .methodNotAllowed
        case .requestTimeout: return .requestTimeout
        case .forbidden: return .forbidden
        case .uriTooLong: return .uriTooLong
        case .headersTooLarge: return .requestHeaderFieldsTooLarge
        }
    }

    /// Whether the connection is closed after the answer: the rest of the request was not read
    /// (a late body, malformed HTTP), or the server is closing it anyway.
    var closesConnection: Bool {
        switch code {
        case .requestTimeout, .badRequest, .uriTooLong, .headersTooLarge, .tooManyConnections, .shuttingDown: return true
        default: return false
        }
    }

    /// The JSON body of HTTP answers.
    var body: Data {
        var fields = ["code": code.rawValue, "message": message]
        if let reason { fields["reason"] = reason }
        return (try? JSONEncoder().encode(["error": fields])) ?? Data()
    }

    /// The answer's headers: the JSON content type, and what the code calls for.
    var headerFields: HTTPFields {
        var headers: HTTPFields = [.contentType: "application/json"]
        if status == .serviceUnavailable { headers[.retryAfter] = "1" }
        if !allowedMethods.isEmpty { headers[.allow] = allowedMethods.map(\.rawValue).joined(separator: ", ") }
        if closesConnection { headers[.connection] = "close" }
        return headers
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: status, headers: headerFields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The whole HTTP/1.1 answer as bytes, for a connection that has no HTTP handler yet;
    /// `instance` is the replica's name (`X-Vision-Tasks-Instance`, as on every answer).
    func rawResponse(instance: String) -> ByteBuffer {
        let body = self.body
        var text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        var headers = headerFields
        headers[.visionTasksInstance] = instance
        headers[.contentLength] = String(body.count)
        for field in headers { text += "\(field.name.rawName): \(field.value)\r\n" }
        var buffer = ByteBuffer(string: text + "\r\n")
        buffer.writeBytes(body)
        return buffer
    }
}
