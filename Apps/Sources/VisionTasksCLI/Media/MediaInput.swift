import Foundation
import MediaIO
import VisionTasks

/// One input of a command: an image file, a video file, raw frames (a file or stdin), or a
/// source FFmpeg opens (a URL, a camera) read live or like a file.
struct MediaInput: Sendable, Equatable {
    enum Kind: String, Sendable {
        case image
        case video
        case raw
        /// A live source (camera, network stream; `LiveOptions`): live-stream mode in real time.
        case live
        /// A URL or device read like a file (`--no-live`, or `--input-format` on a file): video mode.
        case stream
    }

    /// The path as given or found (`-` for stdin).
    var path: String
    var kind: Kind
    /// The input's name for its outputs under `--output-dir` and for the order shards split
    /// inputs in: its path relative to the directory argument or list file it came from, else its
    /// file name; nil for standard input, URLs and devices.
    var relativeName: String? = nil

    static let imageExtensions = MediaFileDecoder.imageExtensions
    static let videoExtensions = MediaFileDecoder.videoExtensions

    /// The kind of a file, from its extension, else from its first bytes (JPEG/PNG signature:
    /// image; anything else: try as video). nil for files in a directory that are neither.
    /// A pipe or FIFO (`cat photo.jpg | vision-tasks hands /dev/stdin`) is an image: reading
    /// its first bytes would consume them, and the decoder then saw a JPEG without its
    /// signature ("not a JPEG or PNG file (starts with 49 46 00 01 ...)").
    static func kind(ofFile path: String, strict: Bool) -> Kind? {
        let ext = (path as NSString).pathExtension.lowercased()
        if imageExtensions.contains(ext) { return .image }
        if videoExtensions.contains(ext) { return .video }
        if !isRegularFile(path) { return strict ? .image : nil }
        guard let handle = FileHandle(forReadingAtPath: path) else { return strict ? .image : nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 8)) ?? Data()
        if head.withUnsafeBytes({ ImageDecoder.container(of: $0) }) != nil { return .image }
        return strict ? .video : nil
    }
}

extension MediaInput {
    /// Whether `path` (after symlinks) is a regular file, which can be read twice.
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// `path` relative to the folder `base` (`""`: the current folder), without `.` components;
    /// nil when `path` is not under `base` or climbs out of it with `..`.
    static func relativeName(of path: String, base: String) -> String? {
        var rest = Substring(path)
        if !base.isEmpty {
            let prefix = base.hasSuffix("/") ? base : base + "/"
            guard path.hasPrefix(prefix) else { return nil }
            rest = path.dropFirst(prefix.count)
        } else if path.hasPrefix("/") {
            return nil
        }
        let parts = rest.split(separator: "/").filter { $0 != "." }
        guard !parts.isEmpty, !parts.contains("..") else { return nil }
        return parts.joined(separator: "/")
    }

    /// The file name of `path`, the name of an input found neither in a folder nor in a list.
    static func fileName(of path: String) -> String { (path as NSString).lastPathComponent }
}

/// Expands the command's input arguments: files as they are, directories recursively in name
/// order (images and videos only, hidden files skipped), `-` for raw frames on stdin.
///
/// A directory scan visits each file and directory once, by device and inode: symlink cycles
/// (`ln -s . d/self`, `ln -s .. d/sub/up`) and second links to a file already found are
/// skipped. FIFOs, devices and sockets are skipped with a note (opening a FIFO would wait for a
/// writer forever). Unreadable folders, broken symlinks and names that are not valid UTF-8 are
/// problems: reported, and the run fails.
enum InputEnumerator {
    struct Result {
        var inputs: [MediaInput] = []
        /// Arguments or directory entries that could not be used (missing paths...), as
        /// messages; they make the run fail.
        var problems: [String] = []
        /// Entries skipped on purpose (FIFOs, devices, cycles), as messages; the run goes on.
        var notes: [String] = []
    }

    /// `sources`: the live-source options, which make URLs, devices (and with `--live`, files)
    /// `.live` or `.stream` inputs; nil takes every argument as a path. `bases`: for each
    /// argument, the folder its inputs' `relativeName`s are relative to (an `--inputs-from`
    /// list's folder); nil, or a nil entry, names a directory's files relative to the directory
    /// and a file by its file name.
    static func enumerate(_ arguments: [String], raw: Bool, sources: LiveOptions? = nil, bases: [String?]? = nil) -> Result {
        var result = Result()
        let fm = FileManager.default
        var visited: Set<FileIdentity> = []
        for (position, argument) in arguments.enumerated() {
            let base = bases.flatMap { position < $0.count ? $0[position] : nil }
            func named(_ path: String, under directory: String?) -> String? {
                if let base, let name = MediaInput.relativeName(of: path, base: base) { return name }
                if let directory, let name = MediaInput.relativeName(of: path, base: directory) { return name }
                return MediaInput.fileName(of: path)
            }
            if argument == "-" {
                if raw {
                    result.inputs.append(MediaInput(path: "-", kind: .raw))
                } else {
                    result.problems.append("-: standard input is read only as raw frames (give --raw WIDTHxHEIGHT:FORMAT)")
                }
                continue
            }
            var isDirectory: ObjCBool = false
            let exists = fm.fileExists(atPath: argument, isDirectory: &isDirectory)
            if let sources, !(exists && isDirectory.boolValue) {
                var info = stat()
                let regular = stat(argument, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
                if let kind = sources.kind(of: argument, isRegularFile: regular) {
                    if raw {
                        result.problems.append("\(argument): --raw reads files or stdin, not a live source or URL")
                    } else if !exists, LiveOptions.urlScheme(argument) == nil,
                              sources.inputFormat.map({ LiveOptions.v4l2Names.contains($0) }) ?? true {
                        result.problems.append(sources.inputFormat == nil
                            ? "\(argument): no such file or directory" : LiveOptions.missingDeviceMessage(argument))
                    } else {
                        result.inputs.append(MediaInput(path: argument, kind: kind))
                    }
                    continue
                }
            }
            guard exists else {
                result.problems.append("\(argument): no such file or directory")
                continue
            }
            if !isDirectory.boolValue {
                if !raw, let problem = deviceProblem(argument) {
                    result.problems.append(problem)
                    continue
                }
                let kind: MediaInput.Kind = raw ? .raw : (MediaInput.kind(ofFile: argument, strict: true) ?? .image)
                result.inputs.append(MediaInput(path: argument, kind: kind, relativeName: named(argument, under: nil)))
                continue
            }
            var files: [String] = []
            scan(argument, visited: &visited, files: &files, result: &result)
            for file in files {
                if raw {
                    result.inputs.append(MediaInput(path: file, kind: .raw, relativeName: named(file, under: argument)))
                } else if let kind = MediaInput.kind(ofFile: file, strict: false) {
                    result.inputs.append(MediaInput(path: file, kind: kind, relativeName: named(file, under: argument)))
                }
            }
        }
        return result
    }

    /// Why `path` cannot be an image or video input when it is a device or a socket (before:
    /// `/dev/zero` was "is empty"); nil for anything else.
    static func deviceProblem(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, [S_IFCHR, S_IFBLK, S_IFSOCK].contains(info.st_mode & S_IFMT) else { return nil }
        let camera = path.hasPrefix("/dev/video") ? " (a camera? give --input-format v4l2)" : ""
        return "\(path): is a device or socket, not an image or video file\(camera)"
    }

    /// Regular files under `directory`, recursively, sorted by path (name order at each level),
    /// each file and directory once.
    static func files(under directory: String) -> [String] {
        var visited: Set<FileIdentity> = []
        var files: [String] = []
        var result = Result()
        scan(directory, visited: &visited, files: &files, result: &result)
        return files
    }

    private static func scan(_ directory: String, visited: inout Set<FileIdentity>, files: inout [String], result: inout Result) {
        var info = stat()
        guard stat(directory, &info) == 0 else {
            result.problems.append("\(directory): \(OutputFile.lastError())")
            return
        }
        guard visited.insert(FileIdentity(info)).inserted else {
            result.notes.append("\(directory): skipped, a folder already scanned (a symlink loop or a second link)")
            return
        }
        guard let stream = opendir(directory) else {
            result.problems.append("\(directory): cannot read the folder: \(OutputFile.lastError())")
            return
        }
        var names: [String] = []
        while let entry = readdir(stream) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard let name = String(validating: bytes, as: UTF8.self) else {
                let shown = String(decoding: bytes, as: UTF8.self)
                result.problems.append("\((directory as NSString).appendingPathComponent(shown)): skipped, the name is not valid UTF-8")
                continue
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        closedir(stream)
        for name in names.sorted() {
            let path = (directory as NSString).appendingPathComponent(name)
            var entry = stat()
            guard stat(path, &entry) == 0 else {
                var link = stat()
                let broken = lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK
                result.problems.append("\(path): \(broken ? "broken symlink" : OutputFile.lastError())")
                continue
            }
            switch entry.st_mode & S_IFMT {
            case S_IFDIR:
                scan(path, visited: &visited, files: &files, result: &result)
            case S_IFREG:
                if visited.insert(FileIdentity(entry)).inserted { files.append(path) }
            default:
                result.notes.append("\(path): skipped, not a regular file (a FIFO, device or socket)")
            }
        }
    }
}

/// An input that cannot be used, said in one sentence naming it.
struct InputError: Error, CustomStringConvertible {
    var description: String
}
