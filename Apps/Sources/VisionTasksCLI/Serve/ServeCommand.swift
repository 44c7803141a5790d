import ArgumentParser
import Foundation
import Logging
import VisionTasks
import VisionTasksServer
import VisionTasksServerTLS

/// `vision-tasks serve`: the live demo page, WebSocket sessions and the HTTP API.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the touchless card-swiping demo page, live WebSocket sessions and an HTTP API.",
        discussion: """
            Open the printed address in a browser: the page sends camera frames to the server \
            and swipes cards with thumbs up and thumbs down. Programs use the same server:

              WebSocket /v1/live?task=gesture|hands|pose&numHands=2   binary frames: 8-byte \
            little-endian timestamp (ms) + JPEG; one JSON answer per processed frame
              POST /v1/gesture|hands|pose?numHands=2   a JPEG or PNG body; the CLI's JSON
              GET /healthz (liveness), GET /readyz (readiness: 503 while starting, draining \
            or full), GET /metrics (Prometheus), GET /openapi.json (the HTTP API's OpenAPI document)

            Every answer names the replica in X-Vision-Tasks-Instance (--instance, default the \
            host name), so that a client behind a load balancer can tell which one served it.

            A browser on another machine (a phone) gives the page its camera only over HTTPS: \
            --tls-self-signed serves HTTPS with a certificate made for this machine (check the \
            printed fingerprint on the phone before accepting it), --tls-cert and --tls-key \
            with your own; or put a TLS proxy in front (docs/server.md).

            The server listens on 127.0.0.1 (this machine only) unless --host says otherwise, \
            and answers only requests whose Host and Origin are its own addresses (or an \
            --allowed-origin); others get 403. Ctrl-C or SIGTERM stops it: new connections are \
            refused, requests in progress finish, live sessions are closed with 1001 (going \
            away), and after --drain-seconds every connection left is closed; a second signal \
            closes them at once.

            Every flag can also be set in the environment, as containers are configured: \
            VISION_TASKS_ and the flag's name in capitals with - as _ (VISION_TASKS_PORT=9000, \
            VISION_TASKS_MAX_SESSIONS=4, VISION_TASKS_ALLOWED_ORIGIN=https://a.example,https://b.example); \
            a flag on the command line wins. Details: docs/server.md.

            Examples:
              vision-tasks serve
              vision-tasks serve --port 9000 --max-sessions 4
              vision-tasks serve --host 0.0.0.0 --tls-self-signed
              vision-tasks serve --host 0.0.0.0 --allowed-origin https://vision.example.com
              curl --data-binary @hand.jpg http://127.0.0.1:8080/v1/gesture
            """)

    @Option(help: "The address to listen on; 0.0.0.0 exposes the server to the network.")
    var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: "The TCP port (0: any free port).")
    var port = 8080

    @Option(parsing: .unconditional, help: "The most live sessions open at once; one more is refused.")
    var maxSessions = 8

    @Option(parsing: .unconditional, help: "The largest image (live frame or request body), in bytes (1024 to 1 GiB).")
    var maxImageBytes = ServerLimits().maxImageBytes

    @Option(parsing: .unconditional, help: "The largest image, in pixels (width × height), checked before decoding.")
    var maxImagePixels = ServerLimits().maxImagePixels

    @Option(parsing: .unconditional, help: "The most HTTP task requests in progress at once; one more is answered 503 at once.")
    var maxPendingRequests = ServerLimits().maxPendingRequests

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The most TCP connections open at once (default: 512, fewer when ulimit -n is low); over it, the connection idle longest is closed, or the new one refused with 503 when all are busy.",
        valueName: "n"))
    var maxConnections: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Seconds a connection has to send its first request head, however slowly; then 408 and closed.", valueName: "seconds"))
    var headerTimeout: Double = 60

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Seconds a kept-alive HTTP connection may wait between requests before it is closed.", valueName: "seconds"))
    var idleTimeout: Double = 60

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Seconds a live session may send no message before it is closed (close code 1000, with the reason).", valueName: "seconds"))
    var sessionIdleTimeout: Double = 120

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Seconds a shutdown (SIGTERM, Ctrl-C) may take before every connection left is closed.", valueName: "seconds"))
    var drainSeconds: Double = 10

    @Option(name: .customLong("allowed-origin"), help: ArgumentHelp(
        "An origin whose pages may use the server besides its own addresses, as scheme://host[:port] (e.g. https://vision.example.com behind a reverse proxy); its host is accepted as Host too. Repeat for several.",
        valueName: "origin"))
    var allowedOrigins: [String] = []

    @Option(help: ArgumentHelp(
        "This replica's name, sent as the X-Vision-Tasks-Instance header of every HTTP answer and as instance in a live session's first ready message (default: the host name); 1 to 128 visible ASCII characters.",
        valueName: "name"))
    var instance: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Threads each task instance runs on at most; the default is one per active core. A frame gets them divided by the live sessions open and HTTP requests in progress (at least one) unless --fixed-threads is given."))
    var threads = BaseOptions.defaultNumThreads

    @Flag(help: ArgumentHelp(
        "Run every frame on --threads threads, however many sessions are open (by default sessions share them: a lone session gets them all, several get one each)."))
    var fixedThreads = false

    @Option(help: ArgumentHelp("The model folder (default: $VISION_TASKS_MODELS or ~/.cache/vision-tasks/models).", valueName: "dir"))
    var models: String?

    @Option(help: ArgumentHelp(
        "A PEM certificate (chain) to serve HTTPS and WSS with on --port; needs --tls-key.", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The certificate's PEM private key (readable by its owner only: chmod 600).", valueName: "file"))
    var tlsKey: String?

    @Flag(help: ArgumentHelp(
        "Serve HTTPS with a self-signed certificate for this machine's name and addresses, made once and kept (with its key, mode 0600) in ~/.config/vision-tasks/tls; its SHA-256 fingerprint is printed to check on the phone."))
    var tlsSelfSigned = false

    @Option(help: ArgumentHelp(
        "text: swift-log's lines on standard output; json: one JSON object per line on standard error (time, level, message, session or request id).",
        valueName: "text|json"))
    var logFormat = "text"

    @Option(help: ArgumentHelp(
        "The lowest level logged: trace, debug (every HTTP answer), info, notice, warning, error or critical.", valueName: "level"))
    var logLevel = "info"

    /// The long names of the options above, which `ServeEnvironment` also reads from
    /// `VISION_TASKS_*` variables (a test checks them against the help).
    static let optionNames = [
        "host", "port", "max-sessions", "max-image-bytes", "max-image-pixels", "max-pending-requests", "max-connections",
        "header-timeout", "idle-timeout", "session-idle-timeout", "drain-seconds", "allowed-origin", "instance", "threads", "fixed-threads", "models",
        "log-format", "log-level", "tls-cert", "tls-key", "tls-self-signed",
    ]

    /// The options above that are flags: their variable is 1, true or yes to set them (0, false
    /// or no leaves them unset).
    static let flagNames: Set<String> = ["tls-self-signed", "fixed-threads"]

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard maxSessions >= 1 else { throw ValidationError("--max-sessions must be at least 1") }
        guard (1024...ServerLimits.largestMessageBytes).contains(maxImageBytes) else {
            throw ValidationError("--max-image-bytes must be from 1024 to \(ServerLimits.largestMessageBytes) (1 GiB), not \(maxImageBytes)")
        }
        guard maxPendingRequests >= 1 else { throw ValidationError("--max-pending-requests must be at least 1") }
        guard maxImagePixels >= 1 else { throw ValidationError("--max-image-pixels must be at least 1") }
        for (flag, value, most) in [
            ("--header-timeout", headerTimeout, 86_400.0), ("--idle-timeout", idleTimeout, 86_400), ("--session-idle-timeout", sessionIdleTimeout, 86_400),
        ] where !(value.isFinite && value > 0 && value <= most) {
            throw ValidationError("\(flag) must be more than 0 and at most \(Int(most)) seconds, not \(value)")
        }
        guard drainSeconds.isFinite, (0...3600).contains(drainSeconds) else {
            throw ValidationError("--drain-seconds must be from 0 to 3600, not \(drainSeconds)")
        }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be at least 1") }
        guard (1...BaseOptions.maxNumThreads).contains(threads) else {
            throw ValidationError("--threads must be between 1 and \(BaseOptions.maxNumThreads) (4 per active core), got \(threads)")
        }
        for origin in allowedOrigins where !ServerConfiguration.isOrigin(origin) {
            throw ValidationError(
                "--allowed-origin '\(origin)' is not an origin: give scheme://host[:port], e.g. https://vision.example.com")
        }
        if let instance, !ServerConfiguration.isInstanceName(instance) {
            throw ValidationError("--instance must be 1 to 128 visible ASCII characters (no spaces), not '\(instance.prefix(200))'")
        }
        guard ServerLogFormat(rawValue: logFormat) != nil else {
            throw ValidationError("--log-format must be text or json, not '\(logFormat)'")
        }
        if tlsSelfSigned, tlsCert != nil || tlsKey != nil {
            throw ValidationError("--tls-self-signed makes its own certificate: give it or --tls-cert with --tls-key, not both")
        }
        if (tlsCert == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-cert and --tls-key go together: the certificate and its private key")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError(
                "--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not '\(logLevel)'")
        }
    }

    func run() async throws {
        let directory = models.map { URL(fileURLWithPath: $0) } ?? ModelStore.defaultDirectory
        let store = try ModelProvisioning.ensureInstalled(
            [.gestureRecognizerBundle, .handLandmarkerBundle, .poseLandmarkerFullBundle], directory: directory)
        var configuration = ServerConfiguration(models: ServerModels(store: store))
        configuration.host = host
        configuration.port = port
        configuration.maxSessions = maxSessions
        configuration.limits.maxImageBytes = maxImageBytes
        configuration.limits.maxImagePixels = maxImagePixels
        configuration.limits.maxPendingRequests = maxPendingRequests
        configuration.threadsPerTask = threads
        configuration.sharesThreads = !fixedThreads
        // As servers do (Go's runtime, nginx's worker_rlimit_nofile): the file-descriptor limit up
        // to what the system allows, so that the default connection cap is not the soft 1024's.
        ServerLimits.raiseDescriptorLimit()
        configuration.limits.maxConnections = maxConnections ?? ServerLimits.defaultMaxConnections
        configuration.timeouts.headerRead = .seconds(headerTimeout)
        configuration.timeouts.idle = .seconds(idleTimeout)
        configuration.timeouts.session = .seconds(sessionIdleTimeout)
        configuration.drainDuration = .seconds(drainSeconds)
        configuration.allowedOrigins = allowedOrigins
        if let instance { configuration.instance = instance }
        let tls = try loadTLS()
        configuration.tls = tls
        let format = ServerLogFormat(rawValue: logFormat) ?? .text
        let server = try VisionServer(
            configuration: configuration, logger: format.logger(level: Logger.Level(rawValue: logLevel) ?? .info))
        let scheme = tls == nil ? "http" : "https"
        let shownHost = Self.shownHost(host, tls: tls)
        try await server.run { boundPort in
            FileHandle.standardOutput.write(Data("vision-tasks serve: open \(scheme)://\(shownHost):\(boundPort)/ (Ctrl-C stops)\n".utf8))
            if let tls {
                FileHandle.standardOutput.write(Data(
                    "vision-tasks serve: certificate SHA-256 fingerprint \(tls.fingerprint) (for \(tls.names.joined(separator: ", ")); valid until \(tls.notValidAfter))\n".utf8))
            } else if let warning = Self.cameraWarning(host: host, port: boundPort) {
                FileHandle.standardError.write(Data("vision-tasks serve: \(warning)\n".utf8))
            }
        }
    }

    /// The certificate to serve with: `--tls-cert` and `--tls-key` checked, or the kept
    /// self-signed one (made on first use); nil for plain HTTP. Errors say what is wrong before
    /// the server starts.
    func loadTLS() throws -> ServerTLS? {
        do {
            if let tlsCert, let tlsKey { return try ServerTLS.load(certificateFile: tlsCert, keyFile: tlsKey) }
            guard tlsSelfSigned else { return nil }
            let folder = ServerTLS.defaultSelfSignedFolder()
            let (tls, created) = try ServerTLS.selfSigned(folder: folder, names: ServerTLS.machineNames())
            FileHandle.standardOutput.write(Data(
                "vision-tasks serve: \(created ? "made a self-signed certificate" : "using the self-signed certificate") in \(folder.path)\n".utf8))
            return tls
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The name to print in the address to open: for a wildcard address with TLS, the
    /// certificate's first IPv4 address other than a loopback one (what a phone on the same
    /// network opens, a name the certificate is for), else 127.0.0.1.
    static func shownHost(_ host: String, tls: ServerTLS?) -> String {
        guard host == "0.0.0.0" || host == "::" else { return host.contains(":") ? "[\(host)]" : host }
        let network = tls?.names.first { name in
            let parts = name.split(separator: ".")
            return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil } && !name.hasPrefix("127.")
        }
        return network ?? "127.0.0.1"
    }

    /// What to tell a person who serves the page to other machines over plain HTTP: their
    /// browsers give a page a camera only in a secure context (HTTPS, or localhost). Nil when
    /// `host` is a loopback address, where the page has its camera.
    static func cameraWarning(host: String, port: Int) -> String? {
        let loopback = host == "localhost" || host == "::1" || host.hasPrefix("127.")
        if loopback { return nil }
        return "browsers on other machines give this page no camera over http:// (a camera needs https, or localhost): "
            + "serve HTTPS (--tls-self-signed, or --tls-cert and --tls-key) or put TLS in front of the server "
            + "(docs/server.md, \"HTTPS for other machines\") and open the https:// address; "
            + "on this machine http://127.0.0.1:\(port)/ has the camera"
    }
}
