// swift-tools-version:6.0
// A package that uses VisionTasks as another project would: it depends on the `VisionTasks`
// product only, by local path, and brings its own frames (raw RGB bytes) instead of decoding
// files. It proves that VisionTasks builds and runs without FFmpeg, libjpeg or libpng:
// scripts/test builds it with a pkg-config that records any call, runs it on a photo's raw
// pixels and compares the landmarks with MediaPipe's.
import PackageDescription

let package = Package(
    name: "VisionTasksConsumer",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "VisionTasks", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "RawHandLandmarks",
            dependencies: [.product(name: "VisionTasks", package: "VisionTasks")]
        ),
    ]
)
