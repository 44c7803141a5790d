import ArgumentParser
import Foundation
import VisionTasks
import VisionTasksServer

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
              GET /healthz, GET /metrics (Prometheus)

            The server listens on 127.0.0.1 (this machine only) unless --host says otherwise. \
            Ctrl-C or SIGTERM stops it gracefully. Details: docs/server.md.

            Examples:
              vision-tasks serve
              vision-tasks serve --port 9000 --max-sessions 4
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

    @Option(parsing: .unconditional, help: "Threads each task instance runs on; the default is one per active core.")
    var threads = BaseOptions.defaultNumThreads

    @Option(help: ArgumentHelp("The model folder (default: $VISION_TASKS_MODELS or ~/.cache/vision-tasks/models).", valueName: "dir"))
    var models: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard maxSessions >= 1 else { throw ValidationError("--max-sessions must be at least 1") }
        guard (1024...ServerLimits.largestMessageBytes).contains(maxImageBytes) else {
            throw ValidationError("--max-image-bytes must be from 1024 to \(ServerLimits.largestMessageBytes) (1 GiB), not \(maxImageBytes)")
        }
        guard maxPendingRequests >= 1 else { throw ValidationError("--max-pending-requests must be at least 1") }
        guard maxImagePixels >= 1 else { throw ValidationError("--max-image-pixels must be at least 1") }
        guard (1...BaseOptions.maxNumThreads).contains(threads) else {
            throw ValidationError("--threads must be between 1 and \(BaseOptions.maxNumThreads) (4 per active core), got \(threads)")
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
        let server = try VisionServer(configuration: configuration)
        let shownHost = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        try await server.run { boundPort in
            FileHandle.standardOutput.write(Data("vision-tasks serve: open http://\(shownHost):\(boundPort)/ (Ctrl-C stops)\n".utf8))
        }
    }
}
