import Foundation

/// A folder of model files: where each `ModelFile` lives and whether it is usable.
///
/// The default folder is `$VISION_TASKS_MODELS`, or `~/.cache/vision-tasks/models` when that is
/// not set. `ModelInstaller` fills it. MediaPipe has no counterpart: its apps ship `.task` files as
/// resources and pass their paths in `BaseOptions.modelAssetPath`; the task types of this package
/// take a path the same way, and the command-line tool finds them here.
///
/// Checking a status reads and hashes the file (a few milliseconds per MB in release builds).
public struct ModelStore: Sendable {
    /// The folder holding the models.
    public let directory: URL

    /// `$VISION_TASKS_MODELS`, or `~/.cache/vision-tasks/models`.
    public static var defaultDirectory: URL {
        if let path = ProcessInfo.processInfo.environment["VISION_TASKS_MODELS"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".cache/vision-tasks/models", isDirectory: true)
    }

    /// A store over `directory` (which need not exist yet).
    public init(directory: URL = ModelStore.defaultDirectory) {
        self.directory = directory
    }

    /// Where `file` is (or would be) in the folder.
    public func path(for file: ModelFile) -> URL {
        directory.appendingPathComponent(file.fileName, isDirectory: false)
    }

    /// Whether `file` is present and usable (see `status(of:)`).
    public func isInstalled(_ file: ModelFile) -> Bool {
        status(of: file).isUsable
    }

    /// The files among `files` that are missing or damaged.
    public func unusableFiles(among files: [ModelFile] = ModelFile.allCases) -> [ModelFile] {
        files.filter { !isInstalled($0) }
    }

    /// Checks `file`: a `.tflite` file or `operations.task` against its SHA-256; an assembled bundle
    /// by opening it and checking each member the tasks need.
    public func status(of file: ModelFile) -> ModelStatus {
        let url = path(for: file)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return .missing }
        if isDirectory.boolValue { return .damaged(reason: "a folder, not a file") }

        if let expected = ModelManifest.sha256(of: file) {
            do {
                let actual = try SHA256.hexDigest(ofFileAt: url)
                return actual == expected ? .installed : .damaged(reason: "SHA-256 \(actual), expected \(expected)")
            } catch {
                return .damaged(reason: "unreadable: \(error.localizedDescription)")
            }
        }
        guard case let .assembled(layout) = ModelManifest.source(of: file) else {
            return .damaged(reason: "no checksum in the manifest")
        }
        do {
            let bundle = try TaskBundle(contentsOf: url)
            return try Self.matches(bundle, layout) ? .installed : .userProvided
        } catch let error as TaskBundleError {
            return .damaged(reason: error.description)
        } catch {
            return .damaged(reason: "\(error)")
        }
    }

    /// Whether every member of `layout` is in `bundle` with our bytes. Throws when a member is
    /// missing or is not a TensorFlow Lite model.
    static func matches(_ bundle: TaskBundle, _ layout: [ModelManifest.BundleMember]) throws -> Bool {
        var allMatch = true
        for member in layout {
            switch member.content {
            case let .model(file):
                guard bundle.hasMember(named: member.name) else {
                    throw TaskBundleError.missingMember(name: member.name, bundle: bundle.name)
                }
                let bytes = try bundle.member(named: member.name)
                guard isTFLiteModel(bytes) else {
                    throw TaskBundleError.corruptMember(
                        name: member.name, bundle: bundle.name, reason: "not a TensorFlow Lite model")
                }
                if SHA256.hexDigest(of: bytes) != ModelManifest.sha256(of: file) { allMatch = false }
            case let .bundle(children):
                if try !matches(bundle.bundle(named: member.name), children) { allMatch = false }
            }
        }
        return allMatch
    }

    /// Whether `bytes` carry the TensorFlow Lite flatbuffer identifier (`TFL3` at offset 4).
    static func isTFLiteModel(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 8 && bytes[4] == 0x54 && bytes[5] == 0x46 && bytes[6] == 0x4C && bytes[7] == 0x33
    }
}
