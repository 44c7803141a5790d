import Foundation
import LiteInterpreter

/// The model bundle a task was created with (`BaseOptions.modelAssetPath` or
/// `modelAssetBuffer`): a MediaPipe `.task` file, i.e. a zip of `.tflite` members, possibly
/// nested (`gesture_recognizer.task` holds `hand_landmarker.task`).
///
/// Every failure is a `TasksError` that names the bundle and what was wrong with it, so that a
/// task's initialiser reports one error type, as MediaPipe's do.
@_spi(Apps) public struct ModelAsset: Sendable {
    package let bundle: TaskBundle

    /// Opens the bundle named by `baseOptions`.
    public init(baseOptions: BaseOptions) throws {
        let bundle: TaskBundle
        switch try baseOptions.modelSource() {
        case .file(let url):
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw TasksError.notFound("Model asset not found: \(url.path)")
            }
            bundle = try Self.open(name: url.path) { try TaskBundle(contentsOf: url) }
        case .buffer(let data):
            bundle = try Self.open(name: "modelAssetBuffer") {
                try TaskBundle(bytes: [UInt8](data), name: "modelAssetBuffer")
            }
        }
        self.bundle = bundle
    }

    package init(bundle: TaskBundle) {
        self.bundle = bundle
    }

    /// A bundle nested in this one, e.g. `hand_landmarker.task` inside `gesture_recognizer.task`.
    package func nestedAsset(named name: String) throws -> ModelAsset {
        ModelAsset(bundle: try Self.open(name: bundle.name) { try bundle.bundle(named: name) })
    }

    /// Parses the member `name` as a TensorFlow Lite model.
    package func model(named name: String) throws -> Model {
        let bytes = try Self.open(name: bundle.name) { try bundle.member(named: name) }
        do {
            return try Model(bytes: bytes)
        } catch {
            throw TasksError.invalidArgument("\(bundle.name): member \(name) is not a usable model: \(error)")
        }
    }

    private static func open<T>(name: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as TasksError {
            throw error
        } catch let error as TaskBundleError {
            if case .missingMember = error {
                throw TasksError.notFound("\(error)")
            }
            throw TasksError.invalidArgument(
                "\(name) is not a usable MediaPipe .task bundle: \(error)")
        } catch {
            throw TasksError.invalidArgument("\(name): \(error)")
        }
    }
}
