import Foundation
import VisionTasks
import VisionTasksModelInstaller

/// Makes sure the models a command needs are installed before it runs, installing them (and saying
/// so on stderr) when they are not. For the task commands.
enum ModelProvisioning {
    /// The model store, after installing the models if any of `files` is missing or damaged
    /// (`ModelInstaller.installIfNeeded`), saying so on stderr.
    static func ensureInstalled(_ files: [ModelFile], directory: URL = ModelStore.defaultDirectory) throws -> ModelStore {
        var announced = false
        try ModelInstaller().installIfNeeded(files, into: directory) { event in
            if case .alreadyInstalled = event { return }
            if !announced {
                announced = true
                writeToStandardError("vision-tasks: models missing or damaged; installing into \(directory.path)")
            }
            writeToStandardError("vision-tasks: \(event)")
        }
        return ModelStore(directory: directory)
    }

    static func writeToStandardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
