import Foundation
import VisionTasks

/// Makes sure the models a command needs are installed before it runs, installing them (and saying
/// so on stderr) when they are not. For the task commands.
enum ModelProvisioning {
    /// The model store, after installing the models if any of `files` is missing or damaged.
    static func ensureInstalled(_ files: [ModelFile], directory: URL = ModelStore.defaultDirectory) throws -> ModelStore {
        let store = ModelStore(directory: directory)
        let unusable = store.unusableFiles(among: files)
        if unusable.isEmpty { return store }
        let names = unusable.map(\.fileName).joined(separator: ", ")
        writeToStandardError("vision-tasks: \(names) not installed; installing models into \(directory.path)")
        try ModelInstaller().install(into: directory) { event in
            if case .alreadyInstalled = event { return }
            writeToStandardError("vision-tasks: \(event)")
        }
        return store
    }

    static func writeToStandardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
