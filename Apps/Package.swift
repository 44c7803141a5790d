// swift-tools-version:6.0
// The VisionTasks apps: the `vision-tasks` command-line tool, its server (`vision-tasks serve`:
// the live WebSocket sessions, the HTTP API, the demo page, HTTPS) and the `vision-tasks-bench`
// benchmark. A package of its own, beside the library (the repository's root package, which it
// depends on by path), so that a package that depends on the library resolves none of the
// server's packages (Hummingbird, SwiftNIO, swift-prometheus, ...).
//
// It builds in its own folder, Apps/.build (the tool is Apps/.build/release/vision-tasks), not in
// the library's .build: SwiftPM keeps a package's checkouts in its build folder and removes those
// another root package does not need.
//
// The apps use declarations the library keeps out of its public surface: they are
// `@_spi(Apps) public` there and imported here with `@_spi(Apps) import`.
import PackageDescription

/// A product of the library package (the repository's root).
func library(_ product: String) -> Target.Dependency { .product(name: product, package: "VisionTasks") }

let package = Package(
    name: "VisionTasksApps",
    // HummingbirdWebSocket (the server's live sessions) declares macOS 14.
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "vision-tasks", targets: ["VisionTasksCLI"]),
        .executable(name: "vision-tasks-bench", targets: ["Benchmarks"]),
        // The server as a library: embedded by the CLI, and by the fuzz targets (Fuzz/).
        .library(name: "VisionTasksServer", targets: ["VisionTasksServer"]),
        .library(name: "VisionTasksServerTLS", targets: ["VisionTasksServerTLS"]),
    ],
    dependencies: [
        .package(name: "VisionTasks", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Hummingbird's own foundations, which the server imports directly (its channel
        // handlers, HTTP types); already resolved through Hummingbird.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // HTTPS on the server's own port (`serve --tls-cert`, `--tls-self-signed`): TLS, and
        // certificates read, checked and made; already resolved (and built) through Hummingbird.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // What the CLI and the server share: running a task on a frame in a running mode
        // (`FrameTask`), and the JSON records both write (`FrameRecord`, `PoseRecord`).
        .target(name: "TaskRunner", dependencies: [library("VisionTasks")]),

        // `vision-tasks serve`: the live WebSocket server, the HTTP API and the demo page (Hummingbird).
        .target(
            name: "VisionTasksServer",
            dependencies: [
                "TaskRunner",
                library("VisionTasks"), library("MediaIO"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // Page: the demo page; OpenAPI: the HTTP API's document (GET /openapi.json, docs/openapi.json).
            resources: [.copy("Page"), .copy("OpenAPI")]
        ),

        // The server's HTTPS (`serve --tls-cert`, `--tls-self-signed`): certificates read,
        // checked and made, and the TLS handler; apart, so that the server alone (and its fuzz
        // targets) build no TLS stack.
        .target(
            name: "VisionTasksServerTLS",
            dependencies: [
                "VisionTasksServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),

        // The `vision-tasks` command-line tool.
        .executableTarget(
            name: "VisionTasksCLI",
            dependencies: [
                "VisionTasksServer", "VisionTasksServerTLS", "TaskRunner",
                library("VisionTasks"), library("VisionTasksModelInstaller"), library("LiteInterpreter"),
                library("MediaIO"), library("VisionTasksMLKit"), library("VisionTasksAppleVision"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `serve --log-format`, `--log-level`: the server's logger.
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // `vision-tasks-bench`: prints our timings beside LiteRT's and MediaPipe's.
        .executableTarget(
            name: "Benchmarks",
            dependencies: [library("VisionTasks"), library("LiteInterpreter"), library("MediaIO")]),

        .testTarget(
            name: "VisionTasksCLITests",
            dependencies: [
                "VisionTasksCLI", "VisionTasksServerTLS",
                library("VisionTasks"), library("VisionTasksModelInstaller"), library("TestSupport"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "VisionTasksServerTests",
            dependencies: [
                "VisionTasksServer", "VisionTasksServerTLS", "TaskRunner",
                library("VisionTasks"), library("MediaIO"), library("TestSupport"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ]
)

// As in the library: existential types spelt `any P`, and every module whose members are used imported.
for target in package.targets where target.type != .system && target.type != .binary && target.type != .plugin {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
