import Foundation
import VisionTasks

/// The state of each file in a model folder, checked against the SHA-256 sums of the install
/// manifest: what `ModelInstaller` and `vision-tasks models list` report. Checking a status reads
/// and hashes the file (a few milliseconds per MB in release builds).
extension ModelStore {
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
