import Dispatch
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import VisionTasks

/// The request context of the WebSocket router: Hummingbird's, and the connection's channel,
/// which a session closes when its client does not answer a close in time.
struct LiveRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}

extension VisionServer {
    /// WebSocket close code 1013, "try again later" (RFC 6455's registry), for a full server.
    static let tryAgainLater = WebSocketErrorCode.unknown(1013)

    func makeWebSocketRouter() -> Router<LiveRequestContext> {
        let router = Router(context: LiveRequestContext.self)
        // The 101 answer names the replica too, as every HTTP answer does.
        let instance = configuration.instance
        router.ws("/v1/live", shouldUpgrade: { _, _ in .upgrade([.visionTasksInstance: instance]) }) { inbound, outbound, context in
            try await runSession(inbound: inbound, outbound: outbound, request: context.request, channel: context.requestContext.channel)
        }
        return router
    }

    /// One live session, from the upgrade to the close. Refusals (too many sessions, bad
    /// options in the URL) are an error message and a close; everything else a client sends
    /// wrong gets an error message and the session goes on. The server ends a session that
    /// sends nothing for `ServerTimeouts.session` (close 1000) and every session when it drains
    /// (close 1001, going away); a client that breaks the WebSocket rules gets the close code
    /// of the rule (1002, 1007, 1009), thrown back to hummingbird-websocket, which sends it.
    func runSession(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, request: Request, channel: any Channel) async throws {
        func refuse(_ error: ServerError, code: WebSocketErrorCode) async {
            metrics.recordError(error.code)
            if let text = LiveSession.text(of: LiveErrorAnswer(error: error)) {
                try? await outbound.write(.text(text))
            }
            try? await outbound.close(code, reason: error.code.rawValue)
        }

        guard sessions.open() else {
            metrics.sessionRefused()
            await refuse(
                ServerError(
                    code: .tooManySessions,
                    message: "the server already has its maximum of \(sessions.limit) live sessions; try again later"),
                code: Self.tryAgainLater)
            return
        }
        defer { sessions.close() }

        let session: LiveSession
        let (answers, continuation) = AsyncStream.makeStream(of: LiveOutgoing.self, bufferingPolicy: .bufferingNewest(4))
        do {
            let settings = try TaskSettings(task: .gesture).applying(query: request.uri)
            do {
                session = try LiveSession(
                    settings: settings, library: library, limits: configuration.limits, metrics: metrics,
                    threads: threads, send: { continuation.yield($0) })
            } catch {
                throw ServerError(code: .taskFailed, message: "the task cannot be created: \(error)")
            }
        } catch let error as ServerError {
            await refuse(error, code: .policyViolation)
            return
        } catch {
            return
        }
        metrics.sessionOpened()
        defer { metrics.sessionClosed() }
        // Every line about this session carries its id (`session` in JSON logs).
        let logger = {
            var logger = self.logger
            logger[metadataKey: "session"] = "\(Self.newSessionID())"
            return logger
        }()
        logger.info("live session opened", metadata: ["task": "\(session.settings.task.rawValue)", "open": "\(sessions.current)"])

        let limits = configuration.limits
        let activity = SessionActivity()
        let ended: (any Error)? = await withTaskGroup(of: Void.self) { group in
            // Answers go out in order; a client that does not read only holds up this task,
            // and the bounded stream drops its oldest unsent answers.
            group.addTask {
                for await message in answers {
                    do {
                        switch message {
                        case .text(let text): try await outbound.write(.text(text))
                        case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                        }
                    } catch {
                        break
                    }
                }
            }
            group.addTask {
                await closeWhenDue(session, activity: activity, outbound: outbound, channel: channel, logger: logger)
            }
            session.answer(
                LiveReadyAnswer(
                    settings: session.settings, maxImageBytes: limits.maxImageBytes, maxImagePixels: limits.maxImagePixels,
                    instance: configuration.instance))
            var failure: (any Error)?
            do {
                for try await message in inbound.messages(maxSize: limits.largestLiveMessageBytes) {
                    activity.touch()
                    // What a message means is decided by LiveMessage (which the live fuzz target
                    // drives too); what cannot be used is an error answer and the session goes on.
                    do throws(ServerError) {
                        switch message {
                        case .binary(let buffer):
                            // After an upload request, the next binary message is its bundle.
                            if !session.receiveUpload(buffer.readableBytesView) {
                                session.receive(try LiveMessage(binary: buffer.readableBytesView))
                            }
                        case .text(let text):
                            // A text message in the middle of an upload ends the upload first.
                            session.abandonUpload()
                            session.receive(try LiveMessage(text: text, settings: session.settings, limits: limits))
                        }
                    } catch {
                        session.fail(error, timestamp: nil)
                    }
                }
            } catch {
                logger.debug("live session ended with an error", metadata: ["error": "\(error)"])
                failure = error
            }
            session.close()
            continuation.finish()
            group.cancelAll()
            return failure
        }
        logger.info("live session closed", metadata: ["dropped": "\(session.droppedFrames)"])
        if let ended { throw ended }
    }

    /// Waits until the session is due to be closed by the server (the drain started, or no
    /// message came for `ServerTimeouts.session`), then closes it with a reason; a client that
    /// has not answered the close within `sessionCloseGrace` (or that does not read, so that
    /// the close cannot go out) has its connection closed. Returns early when cancelled (the
    /// session ended by itself).
    private func closeWhenDue(
        _ session: LiveSession, activity: SessionActivity, outbound: WebSocketOutboundWriter, channel: any Channel, logger: Logger
    ) async {
        let timeout = configuration.timeouts.session
        let (code, reason): (WebSocketErrorCode, String) = await withTaskGroup(of: (WebSocketErrorCode, String)?.self) { group in
            group.addTask {
                await drain.waitForDrain()
                return Task.isCancelled ? nil : (.goingAway, "server shutting down")
            }
            group.addTask {
                while !Task.isCancelled {
                    let quiet = activity.quietTime
                    if quiet >= timeout { return (.normalClosure, "no message for \(Self.seconds(timeout)) s") }
                    try? await Task.sleep(for: timeout - quiet)
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? (.normalClosure, "")
        }
        guard !Task.isCancelled else { return }
        session.close()
        logger.info("live session closed by the server", metadata: ["reason": "\(reason)"])
        // The close frame may wait for a client that does not read: sent beside the grace timer.
        let closing = Task { try? await outbound.close(code, reason: reason) }
        try? await Task.sleep(for: Self.sessionCloseGrace)
        if !Task.isCancelled { channel.close(promise: nil) }
        closing.cancel()
    }

    /// A live session's id in the logs: 12 random hexadecimal digits.
    static func newSessionID() -> String {
        let value = UInt64.random(in: 0..<(1 << 48))
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 12 - digits.count) + digits
    }

    static func seconds(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}

/// When a live session last received a message from its client.
final class SessionActivity: @unchecked Sendable {
    private let lock = NSLock()
    private var last = ContinuousClock.now

    func touch() { lock.withLock { last = .now } }

    /// The time since the last message (or since the session started).
    var quietTime: Duration { ContinuousClock.now - lock.withLock { last } }
}
