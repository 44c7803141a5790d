import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Follows the requests of an HTTP connection (behind Hummingbird's HTTP/1 codec) for the
/// `ConnectionRegistry`: busy from a request's head to its answer's end, idle between requests.
/// While the server drains, an answer says `Connection: close` and its connection is closed
/// once the answer is out.
final class RequestActivity: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let registry: ConnectionRegistry

    init(registry: ConnectionRegistry) { self.registry = registry }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { registry.markBusy(context.channel) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where registry.isDraining:
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            if registry.markIdle(context.channel) {
                context.write(data, promise: promise)
            } else {
                context.writeAndFlush(data, promise: promise)
                context.close(promise: nil)
            }
        default:
            context.write(data, promise: promise)
        }
    }
}
