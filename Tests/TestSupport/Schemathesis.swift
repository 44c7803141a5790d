import Foundation

/// schemathesis (PyPI), which the OpenAPI test runs against a live server: the virtual
/// environment `scripts/test` installs it into (`vt_ensure_schemathesis_venv`,
/// `~/.cache/vision-tasks/schemathesis-venv`), or `$VISION_TASKS_SCHEMATHESIS` (the program's
/// path) when set. Missing: the test is skipped with a message (fails under CI).
public enum Schemathesis {
    /// The version `scripts/lib/common.sh` pins.
    public static let version = "4.32.5"

    /// The virtual environment `scripts/test` makes.
    public static var virtualEnvironment: URL {
        FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/vision-tasks/schemathesis-venv")
    }

    /// The `schemathesis` program's path.
    public static func executable() throws -> String {
        if let path = ProcessInfo.processInfo.environment["VISION_TASKS_SCHEMATHESIS"], !path.isEmpty { return path }
        let path = virtualEnvironment.appendingPathComponent("bin/schemathesis").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw SharedTestData.missing(
                "no schemathesis: run scripts/test (it installs schemathesis==\(version) into \(virtualEnvironment.path)) or set VISION_TASKS_SCHEMATHESIS")
        }
        return path
    }
}
