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
        .executable(name: "vision-tasks", targets: ["VisionTasksCLI"]),
        .executable(name: "vision-tasks-bench", targets: ["Benchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        // `swift package generate-documentation --target VisionTasks` (the DocC catalog); a plugin,
        // so nothing of it is linked into the products.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
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

        // MediaPipe Tasks Vision compatible API: bundles, images from pixels in memory (pixel
        // formats and conversions), hand landmarks, gestures, pose. No system libraries: a package
        // that depends on this product builds without FFmpeg, libjpeg or libpng
        // (scripts/check-layering checks its dependency closure in CI).
        .target(
            name: "VisionTasks",
            dependencies: [
                "LiteInterpreter", "CKernels",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),

        // The media layer: decoding and encoding images and videos, EXIF, drawing; extends
        // VisionTasks' MPImage with init(contentsOfFile:), init(contentsOf:), init(data:).
        .target(name: "MediaIO", dependencies: ["VisionTasks", "CJPEG", "CPNG", "CFFmpeg", "CKernels"]),

        // The `vision-tasks` command-line tool.
        .executableTarget(
            name: "VisionTasksCLI",
            dependencies: [
                "VisionTasks", "LiteInterpreter", "MediaIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // `vision-tasks-bench`: prints our timings beside LiteRT's and MediaPipe's.
        .executableTarget(name: "Benchmarks", dependencies: ["VisionTasks", "LiteInterpreter", "MediaIO"]),

        // Locating ../shared test data; failing under CI when it is missing, skipping elsewhere.
        .target(name: "TestSupport", dependencies: ["MediaIO"], path: "Tests/TestSupport"),

        .testTarget(name: "CKernelsTests", dependencies: ["CKernels"]),
        .testTarget(name: "LiteInterpreterTests", dependencies: ["LiteInterpreter", "TestSupport", "VisionTasks"]),
        .testTarget(name: "MediaIOTests", dependencies: ["MediaIO", "VisionTasks", "TestSupport"]),
        .testTarget(name: "VisionTasksTests", dependencies: ["VisionTasks", "MediaIO", "TestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(name: "VisionTasksCLITests", dependencies: ["VisionTasksCLI", "TestSupport"]),
    ]
)
