// swift-tools-version:6.0
// A package that uses VisionTasks as another project would: it depends on the `VisionTasks`
// product only, by local path, and brings its own frames (raw RGB bytes) instead of decoding
// files. It proves that VisionTasks builds and runs without FFmpeg, libjpeg or libpng:
// scripts/check-consumer (run by scripts/test) builds it, checks with ldd that the executable
// links no media library, runs it on a photo's raw pixels and compares the landmarks with
// MediaPipe's; scripts/dev/build-consumer-without-media-libs builds it on a /usr from which the
// media -dev packages are removed.
import PackageDescription

let package = Package(
    name: "VisionTasksConsumer",
    // VisionTasks' own minimum (macOS 14, from HummingbirdWebSocket; SwiftPM gives one minimum to
    // all of a package's products): a package cannot declare a lower one than its dependency.
    platforms: [.macOS(.v14)],
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
