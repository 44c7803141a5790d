import Foundation

/// The demo page's files (`Page/` in the package's resources), read once when the server starts.
struct StaticPage: Sendable {
    struct File: Sendable {
        var contentType: String
        var bytes: Data
    }

    /// Path ("/", "/app.js", ...) to file.
    let files: [String: File]

    static let names: [(name: String, contentType: String)] = [
        ("index.html", "text/html; charset=utf-8"),
        ("app.js", "text/javascript; charset=utf-8"),
        ("settings.js", "text/javascript; charset=utf-8"),
        ("teach.js", "text/javascript; charset=utf-8"),
        ("style.css", "text/css; charset=utf-8"),
    ]

    /// Reads the page from the module's bundle; a missing file is a `TasksError`-free plain error.
    init() throws {
        var files: [String: File] = [:]
        for (name, type) in Self.names {
            guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Page"),
                let bytes = FileManager.default.contents(atPath: url.path)
            else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "Page/\(name) in the VisionTasksServer resources"])
            }
            files["/" + name] = File(contentType: type, bytes: bytes)
        }
        files["/"] = files["/index.html"]
        self.files = files
    }
}
