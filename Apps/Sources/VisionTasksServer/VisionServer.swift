import Dispatch
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import TaskRunner
import VisionTasks

/// `vision-tasks serve`: the demo page, live WebSocket sessions and the HTTP API on Hummingbird.
///
/// - `GET /`: the touchless card-swiping demo page (`Page/` in the resources).
/// - WebSocket `/v1/live?task=gesture|hands|pose&numHands=...`: binary frames (`LiveFrame`:
///   8-byte little-endian timestamp in milliseconds, then a JPEG or PNG), one JSON answer per
///   processed frame (`LiveAnswer`); a text message is a JSON object of options.
/// - `POST /v1/gesture`, `/v1/hands`, `/v1/pose`: a JPEG or PNG body, options as query
///   parameters, the CLI's JSON answer.
/// - `GET /healthz` (liveness), `GET /readyz` (readiness: `ServerReadiness`), `GET /metrics`
///   (Prometheus text format), `GET /openapi.json` (the OpenAPI document of these routes,
///   `OpenAPI/openapi.json` in the resources).
///
/// Every answer carries `X-Vision-Tasks-Instance: NAME` (`ServerConfiguration.instance`).
///
/// Every path answers `HEAD` where it answers `GET`, and `OPTIONS`. Only the server's own
/// `Host` and `Origin` values are answered (`OriginPolicy`); connections are capped and timed
/// (`ServerLimits`, `ServerTimeouts`); a shutdown drains the server (`ServerDrain`).
///
/// Models are read once, when the server is created; an image-mode instance of every task is
/// built then too, so that the first request is answered at once.
public struct VisionServer: Sendable {
    /// The settings it was created with.
    public let configuration: ServerConfiguration
    let library: ModelLibrary
    let pool: EnginePool
    let metrics = ServerMetrics()
    let sessions: SessionCounter
    /// HTTP task requests in progress (`ServerLimits.maxPendingRequests`).
    let pendingRequests: SessionCounter
    /// The threads each frame runs on.
    let threads: ThreadShare
    let gate: RequestGate
    let page: StaticPage
    /// `GET /openapi.json`'s bytes, read from the resources once.
    let openAPIDocument: Data
    let logger: Logger
    /// Open connections: the cap and the drain.
    let connections: ConnectionRegistry
    /// The `Host` and `Origin` values answered.
    let origins: OriginPolicy
    /// The shutdown (`ServerDrain`).
    let drain: ServerDrain
    /// Whether it listens yet (`GET /readyz`).
    let readiness = ServerReadiness()

    /// Reads the models and the page and builds one image-mode instance of each task. Errors:
    /// `ServerConfigurationError` for a setting out of range (checked first), `TasksError` for a
    /// missing or damaged model.
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "vision-tasks.serve")) throws {
        // A limit of Int.max overflowed (a trap) and one of 4 GiB or more tripped a
        // precondition in the WebSocket upgrader at the first connection.
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        library = try ModelLibrary(models: configuration.models, threadsPerTask: configuration.threadsPerTask)
        pool = EnginePool(library: library)
        for task in TaskKind.allCases {
            try pool.warmUp(TaskSettings(task: task))
        }
        sessions = SessionCounter(limit: configuration.maxSessions)
        pendingRequests = SessionCounter(limit: configuration.limits.maxPendingRequests)
        threads = ThreadShare(
            threadsPerTask: configuration.threadsPerTask, sharing: configuration.sharesThreads,
            sessions: sessions, requests: pendingRequests)
        gate = RequestGate(limit: ProcessInfo.processInfo.activeProcessorCount)
        page = try StaticPage()
        openAPIDocument = try StaticPage.openAPIDocument()
        connections = ConnectionRegistry(limit: configuration.limits.maxConnections, metrics: metrics)
        origins = OriginPolicy(
            host: configuration.host, port: configuration.port, allowedOrigins: configuration.allowedOrigins,
            scheme: configuration.tls == nil ? "http" : "https")
        drain = ServerDrain(registry: connections, duration: configuration.drainDuration) { [logger] in logger.info("\($0)") }
        metrics.setLimits(sessions: configuration.maxSessions, pendingRequests: configuration.limits.maxPendingRequests)
    }

    /// The Hummingbird application; `onRunning` is called with the bound port once it listens.
    /// Run alone (as `HummingbirdTesting` does), its shutdown is Hummingbird's: sessions get
    /// close code 1000; `makeServiceGroup` adds the server's own drain.
    public func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let limits = configuration.limits
        let timeouts = configuration.timeouts
        let webSocketResponder = makeWebSocketRouter().buildResponder()
        let channel = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(
                additionalChannelHandlers: [RequestActivity(registry: connections)],
                idleTimeout: TimeAmount(timeouts.idle),
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: ServerLimits.maxHeaderBytes, maxHeaderListSize: ServerLimits.maxHeaderBytes,
                    maxHeaderFieldCount: ServerLimits.maxHeaderCount)),
            ws: .init(
                maxFrameSize: limits.largestLiveMessageBytes,
                closeTimeout: Self.sessionCloseGrace, validateUTF8: true))
        let (connections, origins, metrics, readiness, tls) = (connections, origins, metrics, readiness, configuration.tls)
        readiness.restarting()
        let server = HTTPServerBuilder { responder in
            GuardedChannel(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: channel),
                registry: connections, origins: origins, metrics: metrics, headerTimeout: timeouts.headerRead,
                instance: configuration.instance, tls: tls)
        }
        return Application(
            router: ServerRouter(router: makeRouter(), methods: routeMethods, metrics: metrics, instance: configuration.instance),
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "vision-tasks",
                // Beyond the cap the registry closes or refuses connections; this stops accepting
                // a little above it, so that closing ones never take the process to its
                // file-descriptor limit.
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections + 32, logger: logger)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                origins.bind(port: port)
                readiness.started()
                await onRunning(port)
            },
            logger: logger)
    }

    /// The application and its drain (`ServerDrain`) in one service group, without signal
    /// handling: `triggerGracefulShutdown()` drains the server, cancelling the group closes
    /// every connection at once.
    public func makeServiceGroup(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> ServiceGroup {
        drain.reset()
        return ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: makeApplication(onRunning: onRunning)),
                    .init(service: drain, successTerminationBehavior: .ignore),
                ],
                logger: logger))
    }

    /// Runs until SIGINT or SIGTERM, then drains (`ServerDrain`): new connections refused,
    /// requests in progress finished, live sessions closed with 1001 (going away), every
    /// connection closed at `ServerConfiguration.drainDuration` at the latest; a second signal
    /// closes every connection at once.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let group = makeServiceGroup(onRunning: onRunning)
        let connections = connections
        let signals = ShutdownSignals.install(logger: logger) { again in
            if again {
                connections.closeAll()
            } else {
                Task { await group.triggerGracefulShutdown() }
            }
        }
        defer { signals.remove() }
        try await group.run()
    }

    /// How long a live session closed by the server (drain, idle) has to answer the close
    /// before its connection is closed.
    static let sessionCloseGrace: Duration = .seconds(5)

    // MARK: HTTP

    /// The methods each path of the HTTP router takes; `MethodsResponder` answers `HEAD`,
    /// `OPTIONS` and 405 from it.
    var routeMethods: [String: [HTTPRequest.Method]] {
        var methods: [String: [HTTPRequest.Method]] = [
            "/healthz": [.get], "/readyz": [.get], "/metrics": [.get], "/openapi.json": [.get], "/v1/live": [.get],
        ]
        for path in page.files.keys { methods[path] = [.get] }
        for task in TaskKind.allCases { methods["/v1/\(task.rawValue)"] = [.post] }
        return methods
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.middlewares.add(ServerMetricsMiddleware(metrics: metrics))
        router.middlewares.add(OriginCheckMiddleware(origins: origins, connections: connections))
        // The demo page: one route for its files, held in memory since the server started.
        let page = self.page
        let pageFile: @Sendable (Request, BasicRequestContext) throws -> Response = { request, _ in
            guard let file = page.files[request.uri.path] else {
                throw ServerError(code: .notFound, message: "no such file of the demo page")
            }
            return Response(
                status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
        }
        router.get("/", use: pageFile)
        router.get("/:file", use: pageFile)
        router.get("/healthz") { _, _ in
            Self.json(["status": "ok"])
        }
        router.get("/readyz") { _, _ -> Response in
            if let reason = notReadyReason {
                throw ServerError(code: .notReady, message: reason.message, reason: reason.rawValue)
            }
            return Self.json(["status": "ready"])
        }
        let pendingRequests = pendingRequests
        router.get("/metrics") { _, _ -> Response in
            metrics.setInProgress(requests: pendingRequests.current)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        let openAPIDocument = openAPIDocument
        router.get("/openapi.json") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(bytes: openAPIDocument)))
        }
        router.get("/v1/live") { _, _ -> Response in
            Response(
                status: .upgradeRequired, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: ServerError(
                    code: .badMessage, message: "/v1/live is a WebSocket endpoint: connect with a WebSocket client").body)))
        }
        router.post("/v1/:task") { request, context in
            try await handle(request, context: context)
        }
        return router
    }

    /// Why `GET /readyz` answers 503 now (`ServerReadiness`); nil when the server is ready.
    var notReadyReason: ServerReadiness.Reason? {
        readiness.reason(
            draining: drain.isDraining || connections.isDraining, sessionsInUse: sessions.current, sessionLimit: sessions.limit)
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? FrameRecord.makeEncoder().encode(value)) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `POST /v1/{task}`: decodes the body and runs an image-mode task; every client error is
    /// a `ServerError`, which renders its own answer (counted by `ServerMetricsMiddleware`).
    func handle(_ request: Request, context: some RequestContext) async throws -> Response {
        let settings = try Self.requestSettings(task: context.parameters.get("task"), uri: request.uri)
        let limit = configuration.limits.maxImageBytes
        try Self.checkDeclaredLength(request.headers[.contentLength], limit: limit)
        // Admission before the body is read: every request waiting for a core held its
        // body (twice), so N clients posting at once took N x 16 MB (1.2 GB for 40).
        guard pendingRequests.open() else {
            throw ServerError(
                code: .serverBusy,
                message: "the server already has its maximum of \(pendingRequests.limit) requests in progress; try again later")
        }
        defer { pendingRequests.close() }
        let bytes = try await Self.requestBody(request.body, limit: limit, timeout: configuration.limits.maxBodyDuration)
        await gate.enter()
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<FrameRecord, any Error>, Never>) in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: Result { try runRequest(bytes, settings: settings) })
            }
        }
        await gate.leave()
        return Self.json(try result.get())
    }

    /// The settings of `POST /v1/{task}?...`: `notFound` unless the path names a task, then the
    /// query's options (`badOption`); a `task` parameter in the query is ignored (the path says).
    /// Called by `handle` and by the `http` fuzz target.
    static func requestSettings(task name: String?, uri: URI) throws(ServerError) -> TaskSettings {
        guard let name, let task = TaskKind(rawValue: name) else {
            throw ServerError(code: .notFound, message: "no such task; POST to /v1/gesture, /v1/hands or /v1/pose")
        }
        return try TaskSettings(task: task).applying(query: uri, ignoring: ["task"], live: false)
    }

    /// `imageTooLarge` when a request's `Content-Length` header declares more than `limit` bytes
    /// (checked before admission and before any of the body is read). Called by `handle` and by
    /// the `http` fuzz target.
    static func checkDeclaredLength(_ contentLength: String?, limit: Int) throws(ServerError) {
        if let declared = contentLength.flatMap(Int.init), declared > limit {
            throw ServerError(code: .imageTooLarge, message: "the body has \(declared) bytes; the limit is \(limit)")
        }
    }

    /// A request's body, at most `limit` bytes: `imageTooLarge` when more arrives,
    /// `requestTimeout` when it has not all arrived within `timeout`, `badRequest` when it is
    /// not well-formed (a broken chunked encoding) or could not be read. Called by `handle` and
    /// by the `http` fuzz target.
    static func requestBody(_ body: RequestBody, limit: Int, timeout: Duration) async throws(ServerError) -> Data {
        let first = await withTaskGroup(of: Result<ByteBuffer, ServerError>?.self) { group in
            group.addTask {
                do {
                    return .success(try await body.collect(upTo: limit))
                } catch is NIOTooManyBytesError {
                    return .failure(ServerError(code: .imageTooLarge, message: "the body is over the limit of \(limit) bytes"))
                } catch let error as HTTPParserError {
                    return .failure(ServerError(code: .badRequest, message: "the request's body is not well-formed HTTP/1.1 (\(error))"))
                } catch {
                    return .failure(ServerError(code: .badRequest, message: "the request's body could not be read (\(error))"))
                }
            }
            group.addTask {
                // Cancelled when the body came first: no answer from this task then.
                guard (try? await Task.sleep(for: timeout)) != nil else { return nil }
                return .failure(ServerError(
                    code: .requestTimeout, message: "the body did not arrive within \(timeout)"))
            }
            // The first answer wins; cancelling the other stops reading a late body.
            var first: Result<ByteBuffer, ServerError>?
            while first == nil, let next = await group.next() { first = next }
            group.cancelAll()
            return first
        }
        guard let first else {
            throw ServerError(code: .requestTimeout, message: "the body did not arrive")
        }
        return Data(try first.get().readableBytesView)
    }

    /// Decodes a request's image and runs an image-mode task on it (the task's errors are
    /// `taskFailed`).
    func runRequest(_ bytes: Data, settings: TaskSettings) throws -> FrameRecord {
        let started = DispatchTime.now().uptimeNanoseconds
        let image = try FrameDecoder.decode(bytes, limits: configuration.limits)
        let output: TaskOutput
        do {
            output = try pool.withEngine(settings) { [threads] engine in
                engine.useThreads(threads.threadsPerFrame)
                return try engine.process(image, timestampInMilliseconds: 0)
            }
        } catch {
            throw ServerError(code: .taskFailed, message: "\(error)")
        }
        metrics.processedFrame(
            settings.task, seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9, live: false)
        return FrameRecord(width: image.width, height: image.height, resultKey: settings.task.rawValue, result: output.result)
    }
}
