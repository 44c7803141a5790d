// swift-tools-version:6.0
// Small programs to copy: each is one file under Sources/, using VisionTasks as another package
// would (a path dependency here; `.package(url: ..., from: ...)` in your project).
//
//   swift run -c release gesture-photo photo.jpg
//   swift run -c release hand-tracking-video clip.mp4
//   swift run -c release live-stream-gestures clip.mp4
//   swift run -c release pose-masks person.jpg masks/
//   swift run -c release bundled-model hand.jpg        (after copying hand_landmarker.task into
//                                                       Sources/BundledModel/Models/)
//
// The models come from `vision-tasks models install` (or Google's official .task files): see
// README.md here.
import PackageDescription

let visionTasks = Target.Dependency.product(name: "VisionTasks", package: "VisionTasks")
let mediaIO = Target.Dependency.product(name: "MediaIO", package: "VisionTasks")

let package = Package(
    name: "VisionTasksExamples",
    // VisionTasks' own minimum (macOS 14, see its Package.swift): not lower than the dependency's.
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "gesture-photo", targets: ["GesturePhoto"]),
        .executable(name: "hand-tracking-video", targets: ["HandTrackingVideo"]),
        .executable(name: "live-stream-gestures", targets: ["LiveStreamGestures"]),
        .executable(name: "pose-masks", targets: ["PoseMasks"]),
        .executable(name: "bundled-model", targets: ["BundledModel"]),
    ],
    dependencies: [
        .package(name: "VisionTasks", path: ".."),
    ],
    targets: [
        // Gesture recognition on a photo (image mode).
        .executableTarget(name: "GesturePhoto", dependencies: [visionTasks, mediaIO]),
        // Hand landmarks over a video's frames (video mode: tracking from frame to frame).
        .executableTarget(name: "HandTrackingVideo", dependencies: [visionTasks, mediaIO]),
        // Live-stream mode with a delegate, fed at a camera's pace.
        .executableTarget(name: "LiveStreamGestures", dependencies: [visionTasks, mediaIO]),
        // Pose landmarks and segmentation masks, written as PNG.
        .executableTarget(name: "PoseMasks", dependencies: [visionTasks, mediaIO]),
        // A model shipped with the program as a SwiftPM resource (Bundle.module): no installer.
        .executableTarget(
            name: "BundledModel", dependencies: [visionTasks, mediaIO],
            resources: [.copy("Models")]),
    ]
)
