import Hummingbird

/// Answers 403 `forbidden` to a request whose `Host` or `Origin` is not the server's own
/// (`OriginPolicy`): a page of another site cannot read the API or `/metrics` through DNS
/// rebinding, nor post images to it; and 503 `shuttingDown` to a request that arrives while the
/// server drains. (A WebSocket upgrade that fails these checks is turned into a plain request
/// by `FirstRequestHandler`, and answered here.)
struct OriginCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    let origins: OriginPolicy
    let connections: ConnectionRegistry

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try origins.check(host: request.head.authority, origin: request.headers[.origin])
        if connections.isDraining {
            throw ServerError(code: .shuttingDown, message: "the server is shutting down; try again later")
        }
        return try await next(request, context)
    }
}
