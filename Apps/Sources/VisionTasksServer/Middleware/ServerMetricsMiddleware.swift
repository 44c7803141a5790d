import Dispatch
import HTTPTypes
import Hummingbird
import Logging

/// The outermost middleware of the HTTP router: every answer is counted
/// (`vision_tasks_http_responses_total{route,status}`, `vision_tasks_http_request_seconds{route}`)
/// and logged at debug level with the request's id (`request` in JSON logs); every error is a
/// `ServerError` answer, counted by its code
/// (`vision_tasks_errors_total{code}`): Hummingbird's own errors (no route, a malformed body)
/// become the server's JSON errors too.
struct ServerMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = DispatchTime.now().uptimeNanoseconds
        func record(_ status: HTTPResponse.Status) {
            let nanoseconds = DispatchTime.now().uptimeNanoseconds - started
            metrics.answered(route: context.endpointPath ?? "NotFound", status: status.code, nanoseconds: nanoseconds)
            // The request's logger carries its id (`request` in JSON logs).
            context.logger.debug(
                "answered", metadata: [
                    "method": "\(request.method.rawValue)", "route": "\(context.endpointPath ?? "NotFound")",
                    "status": "\(status.code)", "ms": "\(nanoseconds / 1_000_000)",
                ])
        }
        do {
            let response = try await next(request, context)
            record(response.status)
            return response
        } catch {
            let answer = Self.serverError(error)
            metrics.recordError(answer.code)
            record(answer.status)
            throw answer
        }
    }

    /// What a client is answered for `error`: a `ServerError` as it is; Hummingbird's HTTP
    /// errors with the code of their status.
    static func serverError(_ error: any Error) -> ServerError {
        if let error = error as? ServerError { return error }
        let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
        switch status {
        case .notFound: return ServerError(code: .notFound, message: "no such route; see GET / and docs/server.md")
        case .methodNotAllowed: return ServerError(code: .methodNotAllowed, message: "this route does not take this method")
        case .contentTooLarge: return ServerError(code: .imageTooLarge, message: "the body is over the server's limit")
        default: return ServerError(code: .badRequest, message: "the request cannot be answered (HTTP \(status.code))")
        }
    }
}
