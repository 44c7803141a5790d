import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import VisionTasks

extension VisionServer {
    /// WebSocket close code 1013, "try again later" (RFC 6455's registry), for a full server.
    static let tryAgainLater = WebSocketErrorCode.unknown(1013)

    func makeWebSocketRouter() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("/v1/live") { inbound, outbound, context in
            await runSession(inbound: inbound, outbound: outbound, request: context.request)
        }
        return router
    }

    /// One live session, from the upgrade to the close. Refusals (too many sessions, bad
    /// options in the URL) are an error message and a close; everything else a client sends
    /// wrong gets an error message and the session goes on.
    func runSession(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, request: Request) async {
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
        let (answers, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(4))
        do {
            let settings = try TaskSettings(task: .gesture).applying(query: request.uri)
            do {
                session = try LiveSession(
                    settings: settings, library: library, limits: configuration.limits, metrics: metrics,
                    send: { continuation.yield($0) })
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
        logger.info("live session opened", metadata: ["task": "\(session.settings.task.rawValue)", "open": "\(sessions.current)"])

        let limits = configuration.limits
        await withTaskGroup(of: Void.self) { group in
            // Answers go out in order; a client that does not read only holds up this task,
            // and the bounded stream drops its oldest unsent answers.
            group.addTask {
                for await text in answers {
                    do { try await outbound.write(.text(text)) } catch { break }
                }
            }
            session.answer(
                LiveReadyAnswer(
                    settings: session.settings, maxImageBytes: limits.maxImageBytes, maxImagePixels: limits.maxImagePixels))
            do {
                for try await message in inbound.messages(maxSize: max(limits.maxImageBytes + LiveFrame.headerSize, limits.maxTextBytes)) {
                    // What a message means is decided by LiveMessage (which the live fuzz target
                    // drives too); what cannot be used is an error answer and the session goes on.
                    do throws(ServerError) {
                        switch message {
                        case .binary(let buffer):
                            session.receive(try LiveMessage(binary: buffer.readableBytesView))
                        case .text(let text):
                            session.receive(try LiveMessage(text: text, settings: session.settings, limits: limits))
                        }
                    } catch {
                        session.fail(error, timestamp: nil)
                    }
                }
            } catch {
                logger.debug("live session ended with an error", metadata: ["error": "\(error)"])
            }
            session.close()
            continuation.finish()
            group.cancelAll()
        }
        logger.info("live session closed", metadata: ["dropped": "\(session.droppedFrames)"])
    }
}
