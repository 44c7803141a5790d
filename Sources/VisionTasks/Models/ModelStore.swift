import Foundation

/// A folder of model files: where each `ModelFile` lives.
///
/// The default folder is `$VISION_TASKS_MODELS`, or `~/.cache/vision-tasks/models` when that is
/// not set. `vision-tasks models install` fills it (or `ModelInstaller`, in the
/// `VisionTasksModelInstaller` library, which also checks each file's state:
/// `ModelStore.status(of:)`). MediaPipe has no counterpart: its apps ship `.task` files as
/// resources and pass their paths in `BaseOptions.modelAssetPath`; the task types of this package
/// take a path the same way, and the command-line tool finds them here.
public struct ModelStore: Sendable {
    /// The folder holding the models.
    public let directory: URL

    /// `$VISION_TASKS_MODELS`, or `~/.cache/vision-tasks/models`.
    public static var defaultDirectory: URL {
        if let path = ProcessInfo.processInfo.environment["VISION_TASKS_MODELS"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".cache/vision-tasks/models", isDirectory: true)
    }

    /// A store over `directory` (which need not exist yet).
    public init(directory: URL = ModelStore.defaultDirectory) {
        self.directory = directory
    }

    /// Where `file` is (or would be) in the folder.
    public func path(for file: ModelFile) -> URL {
        directory.appendingPathComponent(file.fileName, isDirectory: false)
    }
}
