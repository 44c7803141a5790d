import ArgumentParser
import Foundation
import VisionTasks
import VisionTasksModelInstaller

/// `vision-tasks models list`: each known model file, its size and state, and other files in the folder.
struct ModelsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show which models are installed, and where."
    )

    @Option(name: .long, help: "The model folder (default: $VISION_TASKS_MODELS or ~/.cache/vision-tasks/models).")
    var directory: String?

    func run() throws {
        let folder = directory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? ModelStore.defaultDirectory
        let store = ModelStore(directory: folder)
        // Before, a file as the folder (VISION_TASKS_MODELS=/etc/passwd) listed every model as
        // "missing", as if an install would help; the install then refused the folder.
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ModelInstallerError.fileSystem(
                path: folder.path,
                reason: "is a file, not a folder; the model folder ($VISION_TASKS_MODELS, or --directory) must be a directory")
        }
        print("Model folder: \(folder.path)")
        var unusable = 0
        let width = (ModelFile.allCases.map(\.fileName.count).max() ?? 0) + 2
        for file in ModelFile.allCases {
            let status = store.status(of: file)
            if !status.isUsable { unusable += 1 }
            let size = Self.size(of: store.path(for: file)).map(Self.formatted) ?? "-"
            print(file.fileName.padding(toLength: width, withPad: " ", startingAt: 0)
                + size.padding(toLength: 10, withPad: " ", startingAt: 0) + status.description)
        }
        let known = Set(ModelFile.allCases.map(\.fileName))
        let others = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { !known.contains($0) && !$0.hasPrefix(".") }
            .sorted()
        if !others.isEmpty {
            print("Other files: \(others.joined(separator: ", "))")
        }
        if unusable > 0 {
            print("\(unusable) file(s) missing or damaged: run `vision-tasks models install`")
        }
    }

    static func size(of url: URL) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.uint64Value
    }

    static func formatted(_ bytes: UInt64) -> String {
        if bytes >= 1 << 20 { return String(format: "%.1f MB", Double(bytes) / 1_048_576) }
        if bytes >= 1 << 10 { return String(format: "%.1f KB", Double(bytes) / 1024) }
        return "\(bytes) B"
    }
}
