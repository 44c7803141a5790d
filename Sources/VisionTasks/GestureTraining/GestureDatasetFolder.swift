import Foundation

/// A gesture dataset folder in Model Maker's layout, scanned but not yet read: one subfolder per
/// label holding its images (and, beyond Model Maker, videos), one of them named `none` in any
/// case for hands that show none of the gestures:
///
/// ```
/// DIR/none/*.jpg|png     DIR/wave/*.jpg|png|mp4     DIR/point/...
/// ```
///
/// Scanning checks everything that can be known before any hand is looked for: the folder
/// exists, its labels can be labels (valid UTF-8, no line breaks), one and only one is `none`,
/// there is at least one gesture besides it, and every label folder holds media. Files that
/// are not media (by their names, as the decoder judges), names that are not valid UTF-8 and
/// folders inside label folders are left out and listed in `ignored`. Names starting with `.`
/// are skipped without a word, as Model Maker's `*/*` pattern does.
public struct GestureDatasetFolder: Sendable {
    /// One image or video of the dataset.
    public struct File: Sendable, Equatable {
        /// The path inside the dataset folder, `label/name`.
        public let relativePath: String
        /// The label (its folder's name).
        public let label: String
        /// Whether it is a still image or a video.
        public let kind: GestureMediaKind
        /// Its size in bytes and modification time (what tells a cached embedding still holds).
        let size: Int64
        let modified: Double
    }

    /// Something in the folder that is not part of the dataset.
    public struct IgnoredEntry: Sendable, Equatable {
        /// The path inside the dataset folder (bytes that are not UTF-8 shown as `\xNN`).
        public let relativePath: String
        /// Why it was left out, in words.
        public let reason: String
    }

    /// The dataset folder.
    public let url: URL
    /// The labels, `none` first and the others sorted (Model Maker's order, which is the
    /// classifier's class order).
    public let labels: [String]
    /// The media files, by label, each label's sorted by name.
    public let files: [File]
    /// What was left out (not media, names that are not UTF-8, subfolders, unreadable entries).
    public let ignored: [IgnoredEntry]

    /// Scans `url`. Throws `GestureTrainingError`: `.notAFolder`, `.emptyFolder`,
    /// `.invalidLabel`, `.missingNoneLabel`, `.duplicateNoneLabel`, `.tooFewLabels`,
    /// `.labelWithoutMedia`.
    public init(url: URL, decoder: any GestureMediaDecoder) throws {
        self.url = url
        let root = url.path
        var info = stat()
        guard stat(root, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw GestureTrainingError.notAFolder(path: root)
        }
        var ignored: [IgnoredEntry] = []
        var labelFolders: [(name: String, bytes: [UInt8])] = []
        for entry in try Self.entries(of: Array(root.utf8), shownAs: root) {
            guard entry.isDirectory else {
                ignored.append(IgnoredEntry(relativePath: entry.shownName, reason: "a file outside the label folders"))
                continue
            }
            guard let name = entry.name else {
                throw GestureTrainingError.invalidLabel(name: entry.shownName, reason: "has a name that is not valid UTF-8")
            }
            if name.contains(where: \.isNewline) {
                throw GestureTrainingError.invalidLabel(name: name.debugDescription, reason: "has a line break in its name")
            }
            labelFolders.append((name, entry.bytes))
        }
        guard !labelFolders.isEmpty else { throw GestureTrainingError.emptyFolder(path: root) }
        let labels = GestureDataset.labelOrder(labelFolders.map(\.name))
        let noneLabels = labels.filter(GestureDataset.isNone)
        guard !noneLabels.isEmpty else { throw GestureTrainingError.missingNoneLabel(labels: labels) }
        guard noneLabels.count == 1 else { throw GestureTrainingError.duplicateNoneLabel(labels: noneLabels) }
        guard labels.count >= 2 else { throw GestureTrainingError.tooFewLabels(labels: labels) }

        var files: [File] = []
        for label in labels {
            guard let folder = labelFolders.first(where: { $0.name == label }) else { continue }
            let folderPath = Array(root.utf8) + [UInt8(ascii: "/")] + folder.bytes
            var found = 0
            for entry in try Self.entries(of: folderPath, shownAs: "\(root)/\(label)") {
                let relative = "\(label)/\(entry.shownName)"
                guard let name = entry.name else {
                    ignored.append(IgnoredEntry(relativePath: relative, reason: "the name is not valid UTF-8: rename the file"))
                    continue
                }
                guard !entry.isDirectory else {
                    ignored.append(IgnoredEntry(relativePath: relative, reason: "a folder inside a label folder (only files directly inside are read)"))
                    continue
                }
                guard entry.isRegularFile else {
                    ignored.append(IgnoredEntry(relativePath: relative, reason: "not a regular file"))
                    continue
                }
                guard let kind = decoder.mediaKind(ofFileAt: url.appendingPathComponent(label).appendingPathComponent(name)) else {
                    ignored.append(IgnoredEntry(relativePath: relative, reason: "not an image or video file this decoder reads"))
                    continue
                }
                files.append(File(relativePath: relative, label: label, kind: kind, size: entry.size, modified: entry.modified))
                found += 1
            }
            if found == 0 {
                throw GestureTrainingError.labelWithoutMedia(label: label, folder: "\(root)/\(label)")
            }
        }
        self.labels = labels
        self.files = files
        self.ignored = ignored
    }

    /// The URL of one of the dataset's files.
    public func url(of file: File) -> URL {
        url.appendingPathComponent(file.relativePath)
    }

    /// One directory entry, its name as bytes (file names need not be UTF-8).
    private struct Entry {
        var bytes: [UInt8]
        var name: String?
        var isDirectory: Bool
        var isRegularFile: Bool
        var size: Int64
        var modified: Double

        /// The name for messages: bytes that are not UTF-8 escaped as `\xNN`.
        var shownName: String {
            name ?? bytes.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined()
        }
    }

    /// The entries of a directory (by its path's bytes), sorted by name, without `.` names.
    private static func entries(of path: [UInt8], shownAs shown: String) throws -> [Entry] {
        let cPath = path.map { CChar(bitPattern: $0) } + [0]
        guard let stream = opendir(cPath) else {
            throw GestureTrainingError.notAFolder(path: shown)
        }
        defer { closedir(stream) }
        var entries: [Entry] = []
        while let entry = readdir(stream) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard let first = bytes.first, first != UInt8(ascii: ".") else { continue }
            let full = (path + [UInt8(ascii: "/")] + bytes).map { CChar(bitPattern: $0) } + [0]
            var info = stat()
            guard stat(full, &info) == 0 else { continue }  // a broken symlink: nothing to read
            let kind = info.st_mode & S_IFMT
            entries.append(Entry(
                bytes: bytes, name: String(validating: bytes, as: UTF8.self),
                isDirectory: kind == S_IFDIR, isRegularFile: kind == S_IFREG, size: Int64(info.st_size),
                modified: Self.modificationTime(info)))
        }
        return entries.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }

    private static func modificationTime(_ info: stat) -> Double {
        #if canImport(Darwin)
        return Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) * 1e-9
        #else
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) * 1e-9
        #endif
    }
}
