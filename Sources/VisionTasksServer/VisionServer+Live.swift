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
            if let data = try? FrameRecord.makeEncoder().encode(LiveErrorAnswer(error: error)),
                let text = String(data: data, encoding: .utf8)
            {
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
            let pairs = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
            let settings = try TaskSettings(task: .gesture).applying(pairs)
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
                    switch message {
                    case .binary(let buffer):
                        do throws(ServerError) {
                            session.submit(try LiveFrame(message: buffer.readableBytesView))
                        } catch {
                            session.fail(error, timestamp: nil)
                        }
                    case .text(let text):
                        guard text.utf8.count <= limits.maxTextBytes else {
                            session.fail(
                                ServerError(code: .badMessage, message: "a text message is limited to \(limits.maxTextBytes) bytes"),
                                timestamp: nil)
                            continue
                        }
                        do throws(ServerError) {
                            session.reconfigure(try session.settings.applying(json: text))
                        } catch {
                            session.fail(error, timestamp: nil)
                        }
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
