import NIOCore
import NIOHTTP1

/// Answers a malformed request after a connection's first (the HTTP decoder's error at a later
/// request's head) as the first is answered: the JSON error (400, or 431 for a head over the
/// limits) with the replica's name, then the connection is closed. `FirstRequestHandler` puts
/// it behind the decoder once the first request turns out not to be a WebSocket upgrade.
///
/// An answer must not overtake the answers to requests before it (a client that sends
/// requests back to back would take it for theirs): with some of them unanswered the error
/// waits until the last of those answers has ended. An error in the middle of a request (its
/// body) goes on to Hummingbird, which is reading that body.
final class MalformedRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let connectionGuard: ConnectionGuard
    private let metrics: ServerMetrics
    /// Requests whose head came and whose answer has not ended.
    private var unanswered = 0
    /// Whether a request's head came and its end has not.
    private var receiving = false
    /// The answer to a malformed request, waiting for the answers before it.
    private var waiting: ServerError?
    private var answered = false

    init(connectionGuard: ConnectionGuard, metrics: ServerMetrics) {
        self.connectionGuard = connectionGuard
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unanswered += 1
            receiving = true
        case .body:
            break
        case .end:
            receiving = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ended: Bool
        if case .end = unwrapOutboundIn(data) { ended = true } else { ended = false }
        context.write(data, promise: promise)
        guard ended else { return }
        unanswered = max(0, unanswered - 1)
        if unanswered == 0, let error = waiting {
            waiting = nil
            answer(context, error)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError, !receiving else {
            context.fireErrorCaught(error)
            return
        }
        let answer = FirstRequestHandler.serverError(parseError, requestLineEnded: nil)
        if unanswered == 0 {
            self.answer(context, answer)
        } else if waiting == nil {
            waiting = answer
        }
    }

    private func answer(_ context: ChannelHandlerContext, _ error: ServerError) {
        guard !answered else { return }
        answered = true
        FirstRequestHandler.answer(context, error, connectionGuard: connectionGuard, metrics: metrics)
    }
}
