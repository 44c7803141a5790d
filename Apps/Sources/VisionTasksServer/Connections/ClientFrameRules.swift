import NIOCore
import NIOWebSocket

/// RFC 6455's rule on frames from a client that neither SwiftNIO's frame decoder nor
/// hummingbird-websocket checks: every frame a client sends is masked (section 5.1). An
/// unmasked frame fails the connection with close code 1002 (protocol error).
///
/// Put behind the frame decoder by `ConnectionGuard` once the upgrade's 101 answer has gone
/// out; frames a client sent before that answer (which it must not) are not checked.
final class ClientFrameRules: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var failed = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let frame = unwrapInboundIn(data)
        guard frame.maskKey != nil else {
            failed = true
            var payload = ByteBuffer()
            payload.write(webSocketErrorCode: .protocolError)
            payload.writeString("frames from a client must be masked")
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)
            context.writeAndFlush(wrapOutboundOut(close)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) { context.close(promise: nil) }
            return
        }
        context.fireChannelRead(data)
    }

    /// Adds the rules behind the pipeline's WebSocket frame decoder; when the upgrade has not
    /// put the decoder there yet, tries again on the next event-loop turns (a few times).
    static func install(in pipeline: ChannelPipeline, attempts: Int = 8) {
        let operations = pipeline.syncOperations
        if let decoder = try? operations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self) {
            try? operations.addHandler(ClientFrameRules(), position: .after(decoder))
        } else if attempts > 1 {
            pipeline.eventLoop.assumeIsolated().execute { install(in: pipeline, attempts: attempts - 1) }
        }
    }
}
