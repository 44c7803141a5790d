import NIOCore
import NIOWebSocket

/// The first handler of every connection's pipeline (raw bytes, before HTTP is parsed): what
/// the server does with a connection whatever it sends, or when it sends nothing.
///
/// - registers the connection (`ConnectionRegistry`: the cap and the drain); a connection the
///   registry refuses is answered 503 and closed;
/// - closes a connection whose first request head has not arrived within the header timeout
///   (408), however slowly its bytes trickle in; later requests on a kept-alive connection are
///   bounded by Hummingbird's idle timeout;
/// - answers 414 at once when the first request line grows past `maxRequestLineBytes`, before
///   HTTP parsing reads any further;
/// - after a WebSocket upgrade (it sees the 101 answer go out), puts `ClientFrameRules` behind
///   the frame decoder;
/// - closes a connection it (or `FirstRequestHandler`) answered with an error by lingering, as
///   nginx does: what the client still sends is read and dropped, the output is closed once the
///   answer is out, and the connection `lingerTime` later or when the client closes its side,
///   so that a client still sending its request reads the answer instead of a reset.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The longest first request line (method, target, version) read: longer ones are 414.
    static let maxRequestLineBytes = 8 << 10
    /// How long a connection answered with an error lingers before it is closed.
    static let lingerTime: TimeAmount = .seconds(2)

    private let registry: ConnectionRegistry
    private let metrics: ServerMetrics
    private let headerTimeout: TimeAmount
    /// The replica's name, on every answer written here and by `FirstRequestHandler`
    /// (`X-Vision-Tasks-Instance`).
    let instance: String
    private var registered = false
    private var headReceived = false
    private var timer: Scheduled<Void>?
    /// Bytes of the first request line so far (after any empty lines before it), until its end.
    private var requestLineBytes = 0
    private var requestLineEnded = false
    private var firstAnswerSeen = false
    private var closing = false

    init(registry: ConnectionRegistry, metrics: ServerMetrics, headerTimeout: Duration, instance: String) {
        self.instance = instance
        self.registry = registry
        self.metrics = metrics
        self.headerTimeout = TimeAmount(headerTimeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { register(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        register(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        registry.close(context.channel)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    private func register(_ context: ChannelHandlerContext) {
        guard !registered else { return }
        registered = true
        guard registry.open(context.channel) else {
            metrics.connectionClosed(.refused)
            let error =
                registry.isDraining
                ? ServerError(code: .shuttingDown, message: "the server is shutting down; try again later")
                : ServerError(
                    code: .tooManyConnections,
                    message: "the server already has its maximum of \(registry.limit) connections, all busy; try again later")
            answerAndClose(context, error)
            return
        }
        let loop = context.eventLoop.assumeIsolated()
        timer = loop.scheduleTask(in: headerTimeout) { [self] in
            timer = nil
            guard !headReceived else { return }
            metrics.connectionClosed(.headerTimeout)
            answerAndClose(context, ServerError(
                code: .requestTimeout,
                message: "no complete request head within \(headerTimeout.nanoseconds / 1_000_000_000) s"))
        }
    }

    /// The HTTP decoder parsed the first request's head (`FirstRequestHandler` says so).
    func firstHeadReceived() {
        headReceived = true
        timer?.cancel()
        timer = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if closing, let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        if !requestLineEnded, !headReceived {
            let buffer = unwrapInboundIn(data)
            for byte in buffer.readableBytesView {
                if byte == UInt8(ascii: "\n") {
                    if requestLineBytes > 0 {
                        requestLineEnded = true
                        break
                    }
                } else if byte != UInt8(ascii: "\r") || requestLineBytes > 0 {
                    requestLineBytes += 1
                }
            }
            if !requestLineEnded, requestLineBytes > Self.maxRequestLineBytes {
                answerAndClose(context, ServerError(
                    code: .uriTooLong, message: "the request line is longer than \(Self.maxRequestLineBytes) bytes"))
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !firstAnswerSeen {
            firstAnswerSeen = true
            let buffer = unwrapOutboundIn(data)
            let head = buffer.getString(at: buffer.readerIndex, length: min(12, buffer.readableBytes))
            if head == "HTTP/1.1 101" {
                // The upgrade handler goes on to replace the HTTP handlers with the WebSocket
                // ones in this same event-loop turn; the rules go behind its frame decoder next.
                let loop = context.eventLoop.assumeIsolated()
                loop.execute { ClientFrameRules.install(in: context.pipeline) }
            }
        }
        context.write(data, promise: promise)
    }

    /// Whether the first request line has ended (so an over-long head is its headers, 431, not
    /// its URL, 414).
    var firstRequestLineEnded: Bool { requestLineEnded }

    private func answerAndClose(_ context: ChannelHandlerContext, _ error: ServerError) {
        guard !closing else { return }
        metrics.recordError(error.code)
        linger(context, after: context.writeAndFlush(wrapOutboundOut(error.rawResponse(instance: instance))))
    }

    /// From now on the client's bytes are dropped; the output is closed once `written` is out,
    /// the connection `lingerTime` later (whether or not the answer could go out) or when the
    /// client closes its side.
    func linger(_ context: ChannelHandlerContext, after written: EventLoopFuture<Void>) {
        closing = true
        timer?.cancel()
        timer = nil
        written.assumeIsolated().whenComplete { _ in context.close(mode: .output, promise: nil) }
        context.eventLoop.assumeIsolated().scheduleTask(in: Self.lingerTime) { context.close(promise: nil) }
    }
}
