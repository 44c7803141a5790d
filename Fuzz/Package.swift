// swift-tools-version:6.0
// libFuzzer targets for every parser of untrusted bytes in VisionTasks, and the tool
// that writes their seed corpora. Built and run by ../scripts/fuzz, which adds the sanitizer flags
// (-sanitize=fuzzer,address); this manifest has no unsafeFlags and the main package knows nothing
// of it. The targets reach the parsers' internal entry points with `@testable import`, so the
// build also passes -enable-testing; no parser is made public for fuzzing.
import PackageDescription

/// `@testable import` opens internal declarations but not `package` ones to another package
/// (TaskBundle): the target that needs them is compiled without access checks. Only that target:
/// the flag changes overload resolution, so the library modules must not get it. (Fuzz/ is a root
/// package nobody depends on, so unsafeFlags are allowed here; the library's and the apps'
/// manifests have none.) The raw-frame target reaches what the CLI's RawFrameSpec calls
/// (ImageLimits.validate) through the file's own `@_spi(Apps) import`, as the CLI does.
let packageAccess: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-access-control"])]

let visionTasks = "VisionTasks"
/// The apps package (../Apps), which holds the server.
let visionTasksApps = "VisionTasksApps"

let serverTargetDependencies: [Target.Dependency] = [
    "FuzzSupport", "FuzzServerInput",
    .product(name: "VisionTasksServer", package: visionTasksApps),
    .product(name: "VisionTasks", package: visionTasks),
    .product(name: "Hummingbird", package: "hummingbird"),
    .product(name: "HummingbirdCore", package: "hummingbird"),
]

let package = Package(
    name: "VisionTasksFuzz",
    dependencies: [
        .package(name: visionTasks, path: ".."),
        .package(name: visionTasksApps, path: "../Apps"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        // The live server's targets build Hummingbird's `URI` and `RequestBody` as the server gets them.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        // libFuzzer's driver, called from each target's entry point (see FuzzSupport.h).
        .target(name: "FuzzSupport"),

        // The TFLite flatbuffer reader and model loading up to the memory plan: `Model(bytes:)`.
        .executableTarget(name: "FuzzModel", dependencies: [
            "FuzzSupport", .product(name: "LiteInterpreter", package: visionTasks)]),
        // The TFLITE_METADATA (M001) flatbuffer and the zip archive appended to a model.
        .executableTarget(name: "FuzzMetadata", dependencies: [
            "FuzzSupport", .product(name: "LiteInterpreter", package: visionTasks)]),
        // `.task` bundles: zip archives, nested bundles inside.
        .executableTarget(name: "FuzzTaskBundle", dependencies: [
            "FuzzSupport", .product(name: "VisionTasks", package: visionTasks)],
            swiftSettings: packageAccess),
        // JPEG and PNG decoding (libjpeg-turbo/libpng, our reconstruction, EXIF, reorientation).
        .executableTarget(name: "FuzzImage", dependencies: [
            "FuzzSupport", .product(name: "MediaIO", package: visionTasks),
            .product(name: "VisionTasks", package: visionTasks)]),
        // `--raw WIDTHxHEIGHT:FORMAT`: the spec parser and the raw frame reader of the CLI.
        // RawFrameSpec.swift is a symbolic link to the CLI's file in Apps/Sources/VisionTasksCLI
        // (an executable target cannot be imported from another package), so the fuzzed code is
        // the CLI's own.
        .executableTarget(name: "FuzzRawFrames", dependencies: [
            "FuzzSupport", .product(name: "MediaIO", package: visionTasks),
            .product(name: "VisionTasks", package: visionTasks)]),

        // ML Kit's pose samples CSV (`PoseSample.samples(csv:)`), the classifier and the tracker.
        .executableTarget(name: "FuzzPoseSamples", dependencies: [
            "FuzzSupport", .product(name: "VisionTasks", package: visionTasks)]),

        // The live server (VisionTasksServer): the input layouts of the two targets below, shared
        // with FuzzSeeds.
        .target(name: "FuzzServerInput", dependencies: [
            .product(name: "VisionTasksServer", package: visionTasksApps), .product(name: "MediaIO", package: visionTasks)]),
        // A live WebSocket session: the URL's options, then binary frames and JSON options messages
        // through the session's own message reading, frame decoding and answers.
        .executableTarget(name: "FuzzLive", dependencies: serverTargetDependencies),
        // `POST /v1/{task}?options` with a body: the request's settings, body checks and decoding.
        .executableTarget(name: "FuzzHTTP", dependencies: serverTargetDependencies),

        // `fuzz-seeds OUTDIR`: writes every target's seed corpus from the installed models, the
        // shared media and the malformed cases the tests make.
        .executableTarget(name: "FuzzSeeds", dependencies: [
            "FuzzSupport",
            .product(name: "LiteInterpreter", package: visionTasks),
            .product(name: "MediaIO", package: visionTasks),
            .product(name: "VisionTasks", package: visionTasks),
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            "FuzzServerInput",
        ]),
    ]
)
