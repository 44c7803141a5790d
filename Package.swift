// swift-tools-version:6.0
// VisionTasks: MediaPipe-compatible hand, gesture and pose tasks for Swift on Linux and macOS,
// running MediaPipe's models through our own TensorFlow Lite interpreter.
import PackageDescription

let package = Package(
    name: "VisionTasks",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "VisionTasks", targets: ["VisionTasks"]),
        .library(name: "LiteInterpreter", targets: ["LiteInterpreter"]),
        .library(name: "MediaIO", targets: ["MediaIO"]),
        .library(name: "VisionTasksMLKit", targets: ["VisionTasksMLKit"]),
        .library(name: "VisionTasksAppleVision", targets: ["VisionTasksAppleVision"]),
        .library(name: "VisionTasksAppleVisionMedia", targets: ["VisionTasksAppleVisionMedia"]),
        .executable(name: "vision-tasks", targets: ["VisionTasksCLI"]),
        .executable(name: "vision-tasks-bench", targets: ["Benchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
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
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat libavcodec libswscale libavutil",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"]), .brew(["ffmpeg"])]),

        // Image and video decoding/encoding, pixel formats, drawing.
        .target(name: "MediaIO", dependencies: ["CJPEG", "CPNG", "CFFmpeg", "CKernels"]),

        // MediaPipe Tasks Vision compatible API: bundles, images, hand landmarks, gestures, pose.
        .target(
            name: "VisionTasks",
            dependencies: [
                "LiteInterpreter", "MediaIO", "CKernels",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
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
                "VisionTasks", "LiteInterpreter", "MediaIO", "VisionTasksMLKit", "VisionTasksAppleVision",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // `vision-tasks-bench`: prints our timings beside LiteRT's and MediaPipe's.
        .executableTarget(name: "Benchmarks", dependencies: ["VisionTasks", "LiteInterpreter", "MediaIO"]),

        // Locating ../shared test data; failing under CI when it is missing, skipping elsewhere.
        .target(name: "TestSupport", path: "Tests/TestSupport"),

        .testTarget(name: "CKernelsTests", dependencies: ["CKernels"]),
        .testTarget(name: "LiteInterpreterTests", dependencies: ["LiteInterpreter", "TestSupport", "VisionTasks"]),
        .testTarget(name: "MediaIOTests", dependencies: ["MediaIO", "TestSupport"]),
        .testTarget(name: "VisionTasksTests", dependencies: ["VisionTasks", "TestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(name: "VisionTasksMLKitTests", dependencies: ["VisionTasksMLKit", "VisionTasks", "MediaIO", "TestSupport"]),
        .testTarget(
            name: "VisionTasksAppleVisionTests",
            dependencies: ["VisionTasksAppleVision", "VisionTasksAppleVisionMedia", "VisionTasks", "MediaIO", "TestSupport"]),
        .testTarget(name: "VisionTasksCLITests", dependencies: ["VisionTasksCLI", "TestSupport"]),
    ]
)
