import Dispatch
import HTTPTypes
import Hummingbird

/// HTTP methods on the server's paths, from one table (`VisionServer.routeMethods`), around the
/// whole router (a router middleware only runs once a route matched the method): `HEAD` where
/// `GET` is answered (the `GET` answer's status and headers, no body), `OPTIONS` anywhere (204
/// with `Allow`), and 405 `methodNotAllowed` with `Allow` for any other method a path does not
/// take. Paths not in the table go on to the router (404).
struct MethodsResponder<Base: HTTPResponder>: HTTPResponder where Base.Context: RequestContext {
    typealias Context = Base.Context

    let base: Base
    /// Path to the methods its routes take.
    let methods: [String: [HTTPRequest.Method]]
    let metrics: ServerMetrics

    func respond(to request: Request, context: Context) async throws -> Response {
        let path = request.uri.path
        guard let taken = methods[path] else { return try await base.respond(to: request, context: context) }
        let allowed = taken + (taken.contains(.get) ? [.head] : []) + [.options]
        switch request.method {
        case .options:
            metrics.answered(route: path, status: 204, nanoseconds: 0)
            return Response(status: .noContent, headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")])
        case .head where taken.contains(.get):
            var head = request.head
            head.method = .get
            return try await base.respond(to: Request(head: head, body: request.body), context: context).createHeadResponse()
        case let method where taken.contains(method):
            return try await base.respond(to: request, context: context)
        default:
            let hint = taken == [.post] ? ": send the image with POST, e.g. curl --data-binary @hand.jpg http://HOST:PORT\(path)" : ""
            let error = ServerError(
                code: .methodNotAllowed, message: "\(path) takes \(taken.map(\.rawValue).joined(separator: " and "))\(hint)",
                allowedMethods: allowed)
            metrics.recordError(error.code)
            metrics.answered(route: path, status: error.status.code, nanoseconds: 0)
            return try error.response(from: request, context: context)
        }
    }
}

/// The server's HTTP responder: the router inside `MethodsResponder`, inside `InstanceResponder`.
struct ServerRouter<Context: RequestContext>: HTTPResponderBuilder {
    let router: Router<Context>
    let methods: [String: [HTTPRequest.Method]]
    let metrics: ServerMetrics
    /// The replica's name (`X-Vision-Tasks-Instance`).
    let instance: String

    func buildResponder() -> InstanceResponder<MethodsResponder<RouterResponder<Context>>> {
        InstanceResponder(base: MethodsResponder(base: router.buildResponder(), methods: methods, metrics: metrics), instance: instance)
    }
}
