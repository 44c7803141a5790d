import Foundation

/// The demo page's files (`Page/` in the package's resources) and the OpenAPI document
/// (`OpenAPI/`), read once when the server starts.
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

    /// The OpenAPI document of the HTTP API (`OpenAPI/openapi.json` in the resources; the same
    /// bytes as docs/openapi.json), served as `GET /openapi.json`.
    static func openAPIDocument() throws -> Data {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json", subdirectory: "OpenAPI"),
            let bytes = FileManager.default.contents(atPath: url.path)
        else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "OpenAPI/openapi.json in the VisionTasksServer resources"])
        }
        return bytes
    }
}
