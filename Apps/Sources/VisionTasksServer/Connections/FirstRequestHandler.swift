import HTTPTypes
import NIOCore
import NIOHTTP1

/// Sits right behind the HTTP decoder for a connection's first request, where the WebSocket
/// upgrade is decided, and leaves the pipeline once that request's head has gone by:
///
/// - tells `ConnectionGuard` that the head arrived (its header timeout stops);
/// - turns an upgrade request whose `Host` or `Origin` is not the server's own, or that arrives
///   while the server drains, into a plain request (no `Upgrade`, `Connection: close`): it never
///   upgrades, and the router's middleware answers it 403 or 503 as any plain request;
/// - answers a first request that is not well-formed HTTP (the decoder's error: a bad request
///   line, header or length) 400, 414 or 431 and closes the connection; without it the upgrade
///   handler waited for a head that never came and the connection stayed open, unanswered;
/// - when the first request is not a WebSocket upgrade, leaves `MalformedRequestHandler` in its
///   place for the connection's later requests (after an upgrade no HTTP handler may stay).
final class FirstRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let connectionGuard: ConnectionGuard
    private let registry: ConnectionRegistry
    private let origins: OriginPolicy
    private let metrics: ServerMetrics
    private var answered = false

    init(connectionGuard: ConnectionGuard, registry: ConnectionRegistry, origins: OriginPolicy, metrics: ServerMetrics) {
        self.connectionGuard = connectionGuard
        self.registry = registry
        self.origins = origins
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var data = data
        guard !answered else { return }
        guard case .head(let head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        connectionGuard.firstHeadReceived()
        registry.markBusy(context.channel)
        var plainRequest = !head.headers.contains(name: "upgrade")
        if !plainRequest {
            let refused: Bool
            do throws(ServerError) {
                try origins.check(host: head.headers.first(name: "host"), origin: head.headers.first(name: "origin"))
                refused = registry.isDraining
            } catch {
                refused = true
            }
            if refused {
                var plain = head
                plain.headers.remove(name: "upgrade")
                plain.headers.replaceOrAdd(name: "connection", value: "close")
                data = wrapInboundOut(.head(plain))
                plainRequest = true
            }
        }
        if plainRequest {
            // Before the head goes on, so that the new handler counts this request too.
            let later = MalformedRequestHandler(connectionGuard: connectionGuard, metrics: metrics)
            try? context.pipeline.syncOperations.addHandler(later, position: .after(self))
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        Self.answer(
            context, Self.serverError(parseError, requestLineEnded: connectionGuard.firstRequestLineEnded),
            connectionGuard: connectionGuard, metrics: metrics)
    }

    /// The answer to a request the decoder could not parse: 431 for a head over the decoder's
    /// limits (414 while the request line itself has not ended; nil: not known, a later
    /// request's), 400 for everything else.
    static func serverError(_ error: HTTPParserError, requestLineEnded: Bool?) -> ServerError {
        switch error {
        case .headerOverflow where requestLineEnded == false:
            return ServerError(code: .uriTooLong, message: "the request line is too long")
        case .headerOverflow where requestLineEnded == nil:
            return ServerError(
                code: .headersTooLarge,
                message: "the request's head (its request line and headers) is over the limits: at most \(ServerLimits.maxHeaderCount) headers and \(ServerLimits.maxHeaderBytes) bytes of them")
        case .headerOverflow:
            return ServerError(
                code: .headersTooLarge,
                message: "the request has more than \(ServerLimits.maxHeaderCount) headers or more than \(ServerLimits.maxHeaderBytes) bytes of them")
        case .invalidContentLength, .unexpectedContentLength:
            return ServerError(
                code: .badRequest,
                message: "the request's length is malformed (a negative, huge or repeated Content-Length, or both Content-Length and Transfer-Encoding)")
        default:
            return ServerError(code: .badRequest, message: "the request is not well-formed HTTP/1.1 (\(error))")
        }
    }

    /// Writes `error` as the connection's last answer (JSON, `Connection: close`, the replica's
    /// name) and closes the connection once it is out (`ConnectionGuard.linger`).
    static func answer(_ context: ChannelHandlerContext, _ error: ServerError, connectionGuard: ConnectionGuard, metrics: ServerMetrics) {
        metrics.recordError(error.code)
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: Int(error.status.code)))
        for field in error.headerFields { head.headers.add(name: field.name.rawName, value: field.value) }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        head.headers.add(name: HTTPField.Name.visionTasksInstance.rawName, value: connectionGuard.instance)
        let body = error.body
        head.headers.add(name: "content-length", value: String(body.count))
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        let written = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
        if let guardContext = try? context.pipeline.syncOperations.context(handler: connectionGuard) {
            connectionGuard.linger(guardContext, after: written)
        } else {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
