import Foundation
import MediaIO
import VisionTasks

/// One input of a command: an image file, a video file, or raw frames (a file or stdin).
struct MediaInput: Sendable, Equatable {
    enum Kind: String, Sendable {
        case image
        case video
        case raw
    }

    /// The path as given or found (`-` for stdin).
    var path: String
    var kind: Kind

    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png"]
    static let videoExtensions: Set<String> = [
        "mp4", "m4v", "mov", "webm", "mkv", "avi", "gif", "mpg", "mpeg", "ts", "wmv", "flv", "3gp", "ogv",
    ]

    /// The kind of a file, from its extension, else from its first bytes (JPEG/PNG signature:
    /// image; anything else: try as video). nil for files in a directory that are neither.
    static func kind(ofFile path: String, strict: Bool) -> Kind? {
        let ext = (path as NSString).pathExtension.lowercased()
        if imageExtensions.contains(ext) { return .image }
        if videoExtensions.contains(ext) { return .video }
        guard let handle = FileHandle(forReadingAtPath: path) else { return strict ? .image : nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 8)) ?? Data()
        if head.withUnsafeBytes({ ImageDecoder.container(of: $0) }) != nil { return .image }
        return strict ? .video : nil
    }
}

/// Expands the command's input arguments: files as they are, directories recursively in name
/// order (images and videos only, hidden files skipped), `-` for raw frames on stdin.
enum InputEnumerator {
    struct Result {
        var inputs: [MediaInput] = []
        /// Arguments that could not be used (missing paths...), as messages.
        var problems: [String] = []
    }

    static func enumerate(_ arguments: [String], raw: Bool) -> Result {
        var result = Result()
        let fm = FileManager.default
        for argument in arguments {
            if argument == "-" {
                if raw {
                    result.inputs.append(MediaInput(path: "-", kind: .raw))
                } else {
                    result.problems.append("-: standard input is read only as raw frames (give --raw WIDTHxHEIGHT:FORMAT)")
                }
                continue
            }
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                result.problems.append("\(argument): no such file or directory")
                continue
            }
            if !isDirectory.boolValue {
                let kind: MediaInput.Kind = raw ? .raw : (MediaInput.kind(ofFile: argument, strict: true) ?? .image)
                result.inputs.append(MediaInput(path: argument, kind: kind))
                continue
            }
            for file in files(under: argument) {
                if raw {
                    result.inputs.append(MediaInput(path: file, kind: .raw))
                } else if let kind = MediaInput.kind(ofFile: file, strict: false) {
                    result.inputs.append(MediaInput(path: file, kind: kind))
                }
            }
        }
        return result
    }

    /// Regular files under `directory`, recursively, sorted by path (name order at each level).
    static func files(under directory: String) -> [String] {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: directory) else { return [] }
        var out: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = (directory as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue { out += files(under: path) } else { out.append(path) }
        }
        return out
    }
}
