import Dispatch
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import VisionTasks

/// `vision-tasks serve`: the demo page, live WebSocket sessions and the HTTP API on Hummingbird.
///
/// - `GET /`: the touchless card-swiping demo page (`Page/` in the resources).
/// - WebSocket `/v1/live?task=gesture|hands|pose&numHands=...`: binary frames (`LiveFrame`:
///   8-byte little-endian timestamp in milliseconds, then a JPEG or PNG), one JSON answer per
///   processed frame (`LiveAnswer`); a text message is a JSON object of options.
/// - `POST /v1/gesture`, `/v1/hands`, `/v1/pose`: a JPEG or PNG body, options as query
///   parameters, the CLI's JSON answer.
/// - `GET /healthz`, `GET /metrics` (Prometheus text format).
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
    let gate: RequestGate
    let page: StaticPage
    let logger: Logger

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
        gate = RequestGate(limit: ProcessInfo.processInfo.activeProcessorCount)
        page = try StaticPage()
    }

    /// The Hummingbird application; `onRunning` is called with the bound port once it listens.
    public func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let limits = configuration.limits
        return Application(
            router: makeRouter(),
            server: .http1WebSocketUpgrade(
                webSocketRouter: makeWebSocketRouter(),
                configuration: .init(ws: .init(maxFrameSize: max(limits.maxImageBytes + LiveFrame.headerSize, limits.maxTextBytes)))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "vision-tasks"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Runs until SIGINT or SIGTERM, then shuts down gracefully: live sessions are closed
    /// (WebSocket close code 1000), requests in progress finish.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await makeApplication(onRunning: onRunning).runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    // MARK: HTTP

    func makeRouter() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        for (path, file) in page.files {
            router.get(RouterPath(path)) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
                    body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
            }
        }
        router.get("/healthz") { _, _ in
            Self.json(["status": "ok"])
        }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
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
        // A browser or `curl URL` asks with GET: say how to ask instead of an empty 404.
        for method in [HTTPRequest.Method.get, .head, .put, .delete, .patch] {
            router.on("/v1/:task", method: method) { _, _ -> Response in
                throw ServerError(
                    code: .methodNotAllowed,
                    message: "send the image with POST, e.g. curl --data-binary @hand.jpg http://HOST:PORT/v1/gesture")
            }
        }
        return router
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? FrameRecord.makeEncoder().encode(value)) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `POST /v1/{task}`: decodes the body and runs an image-mode task; every client error is a
    /// `ServerError` answer (and counted).
    func handle(_ request: Request, context: some RequestContext) async throws -> Response {
        do {
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
            let record = try result.get()
            return Self.json(record)
        } catch let error as ServerError {
            metrics.recordError(error.code)
            var headers: HTTPFields = [.contentType: "application/json"]
            if error.code == .serverBusy { headers[.retryAfter] = "1" }
            // The rest of a late body is not read: the connection cannot carry another request.
            if error.code == .requestTimeout { headers[.connection] = "close" }
            return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: error.body)))
        }
    }

    /// The settings of `POST /v1/{task}?...`: `notFound` unless the path names a task, then the
    /// query's options (`badOption`); a `task` parameter in the query is ignored (the path says).
    /// Called by `handle` and by the `http` fuzz target.
    static func requestSettings(task name: String?, uri: URI) throws(ServerError) -> TaskSettings {
        guard let name, let task = TaskKind(rawValue: name) else {
            throw ServerError(code: .notFound, message: "no such task; POST to /v1/gesture, /v1/hands or /v1/pose")
        }
        return try TaskSettings(task: task).applying(query: uri, ignoring: ["task"])
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
    /// `requestTimeout` when it has not all arrived within `timeout`. Called by `handle` and by
    /// the `http` fuzz target.
    static func requestBody(_ body: RequestBody, limit: Int, timeout: Duration) async throws(ServerError) -> Data {
        let first = await withTaskGroup(of: Result<ByteBuffer, ServerError>?.self) { group in
            group.addTask {
                do {
                    return .success(try await body.collect(upTo: limit))
                } catch {
                    return .failure(ServerError(code: .imageTooLarge, message: "the body is over the limit of \(limit) bytes"))
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
            output = try pool.withEngine(settings) { try $0.process(image, timestampInMilliseconds: 0) }
        } catch {
            throw ServerError(code: .taskFailed, message: "\(error)")
        }
        metrics.processedFrame(
            settings.task, seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9, live: false)
        return FrameRecord(width: image.width, height: image.height, resultKey: settings.task.rawValue, result: output.result)
    }
}
