import Foundation

/// `--inputs-from FILE`: a list of inputs, one path per line. Blank lines and lines starting
/// with `#` are skipped; spaces and tabs before and after a path are trimmed. A relative path is taken
/// relative to the list file's folder (so a list kept beside the videos works wherever the
/// folder is mounted) and names its outputs under `--output-dir` as written; a line may name a
/// file or a folder, as a command-line input.
struct InputList: Sendable {
    /// One input of the list: the path to open, and the folder its output name is relative to
    /// (`""`: the current folder; nil for an absolute path, named by its file name).
    struct Entry: Sendable, Equatable {
        var path: String
        var base: String?
    }

    let entries: [Entry]

    /// Reads the list at `path`.
    init(contentsOf path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw InputError(description: "--inputs-from \(path): no such file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw InputError(description: "--inputs-from \(path): cannot read the list: \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw InputError(description: "--inputs-from \(path): the list is not UTF-8 text")
        }
        self.init(text: text, folder: (path as NSString).deletingLastPathComponent)
    }

    /// The entries of a list's `text`, relative paths resolved against `folder` ("" for the
    /// current one).
    init(text: String, folder: String) {
        var entries: [Entry] = []
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let line = rawLine.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("/") {
                entries.append(Entry(path: line, base: nil))
            } else {
                let path = folder.isEmpty ? line : (folder as NSString).appendingPathComponent(line)
                entries.append(Entry(path: path, base: folder))
            }
        }
        self.entries = entries
    }
}
