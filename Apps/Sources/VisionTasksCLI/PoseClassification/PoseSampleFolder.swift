import Foundation
import MediaIO
import VisionTasks

/// A folder of the user's examples, `FOLDER/<class>/*`: each subfolder is a class, its photos and
/// videos (searched recursively) are that class's examples.
struct PoseSampleFolder {
    /// One class folder and its photos and videos.
    struct ClassFolder {
        var className: String
        var path: String
        var inputs: [MediaInput]
    }

    var classes: [ClassFolder] = []
    /// Entries that could not be used (unreadable folders, broken links): the run fails.
    var problems: [String] = []
    /// Entries skipped on purpose (files beside the class folders, FIFOs): the run goes on.
    var notes: [String] = []

    /// Reads `path`. Throws for a path that is not a folder, a folder without class folders,
    /// a class name the CSV cannot hold, or a class folder with no photo or video.
    init(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InputError(description: "\(path): no such folder")
        }
        guard isDirectory.boolValue else {
            throw InputError(description: "\(path): not a folder; give a folder holding one folder per class (FOLDER/squats_up/, FOLDER/squats_down/, ...)")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw InputError(description: "\(path): cannot read the folder: \(error.localizedDescription)")
        }
        for name in names {
            let entry = (path as NSString).appendingPathComponent(name)
            var entryIsDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: entry, isDirectory: &entryIsDirectory) else {
                problems.append("\(entry): broken symlink")
                continue
            }
            guard entryIsDirectory.boolValue else {
                notes.append("\(entry): skipped, not inside a class folder")
                continue
            }
            if let bad = name.first(where: { $0 == "," || $0.isNewline }) {
                let what = bad == "," ? "a comma" : "a line break"
                throw InputError(description: "\(entry): the class name holds \(what), which ML Kit's samples CSV cannot hold; rename the folder")
            }
            let found = InputEnumerator.enumerate([entry], raw: false)
            problems += found.problems
            notes += found.notes
            let inputs = found.inputs.filter { $0.kind == .image || $0.kind == .video }
            guard !inputs.isEmpty else {
                throw InputError(description: "\(entry): class \"\(name)\" has no photos or videos (JPEG, PNG, MP4, ...)")
            }
            classes.append(ClassFolder(className: name, path: entry, inputs: inputs))
        }
        guard !classes.isEmpty else {
            throw InputError(description: "\(path): no class folders; put each class's photos and videos in a folder named after the class (\(path)/squats_up/, \(path)/squats_down/, ...)")
        }
    }

    /// The sample name of `input` in `folder`: its path inside the class folder.
    static func sampleName(of input: MediaInput, in folder: ClassFolder) -> String {
        let prefix = folder.path.hasSuffix("/") ? folder.path : folder.path + "/"
        return input.path.hasPrefix(prefix) ? String(input.path.dropFirst(prefix.count)) : input.path
    }

    /// The frames of the video at `path` taken every `1 / framesPerSecond` seconds of its
    /// timestamps (the first frame at or after each sampling time), with their timestamps.
    static func sampledFrames(
        of path: String, framesPerSecond: Double, _ body: (PixelBuffer, Int) throws -> Void
    ) throws {
        let reader = try VideoReader(path: path)
        let interval = 1000 / framesPerSecond
        var next = 0.0
        var first: Int?
        while let frame = try reader.nextFrame() {
            let start = first ?? frame.timestampInMilliseconds
            first = start
            let time = Double(frame.timestampInMilliseconds - start)
            guard time >= next - 1e-6 else { continue }
            while next <= time + 1e-6 { next += interval }
            try body(frame.image, frame.timestampInMilliseconds)
        }
    }
}
