import Foundation

/// The `vision-tasks` program, built by the apps package (`Apps/`, beside its tests),
/// for tests that run it as a user does: its stdout, stderr, exit status and signals.
public enum BuiltTool {
    /// The program's path: beside the test bundle (the apps' tests), or in the apps package's
    /// `Apps/.build/release` (the library's tests).
    /// Missing: skipped with a message (fails under CI).
    public static func path() throws -> String {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("vision-tasks").path,
            URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
                .appendingPathComponent("vision-tasks").path,
            SharedTestData.projectRoot.appendingPathComponent("Apps/.build/release/vision-tasks").path,
        ]
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return found }
        throw SharedTestData.missing("the vision-tasks program is not built beside the tests (\(candidates[0]))")
    }

    /// Runs `vision-tasks ARGUMENTS` to its end (at most `seconds`, then it is killed) with
    /// stdout and stderr in files of `folder`: the exit status (nil if it had to be killed),
    /// stdout and stderr.
    public static func run(
        _ arguments: [String], in folder: URL, seconds: Double = 300
    ) throws -> (status: Int32?, stdout: String, stderr: String) {
        let name = UUID().uuidString
        let child = try ChildProcess(
            executable: try path(), arguments: arguments,
            stdout: folder.appendingPathComponent("\(name).out").path,
            stderr: folder.appendingPathComponent("\(name).err").path)
        let status = child.wait(seconds: seconds)
        child.kill()
        return (status, child.outputText(), child.errorText())
    }
}
