import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The C functions under names that `OutputFile`'s own `write` and `close` do not shadow.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
private func posixClose(_ fd: Int32) -> Int32 { close(fd) }

/// A file on disk named by device and inode: what `stat(2)` sees through symlinks. Two paths
/// name the same file exactly when their identities are equal.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64

    /// The identity of the file at `path` (following symlinks), nil if it does not exist.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

/// Why an output could not be written.
struct OutputError: Error, CustomStringConvertible {
    var description: String
}

/// The inputs of a run, by identity, so that no output ever overwrites one of them.
struct InputFiles: Sendable {
    private var paths: [FileIdentity: String] = [:]

    init(_ inputs: [MediaInput]) {
        self.init(paths: inputs.map(\.path))
    }

    /// The files at `paths` (`-`, standard input, is none).
    init(paths: [String]) {
        for path in paths where path != "-" {
            if let identity = FileIdentity(path: path) { self.paths[identity] = path }
        }
    }

    /// Throws if `output` exists and is one of the inputs (the same file by device and inode,
    /// whatever path or link leads to it).
    func checkNotAnInput(_ output: String) throws {
        guard let identity = FileIdentity(path: output), let input = paths[identity] else { return }
        let same = input == output ? "" : " (\(input))"
        throw OutputError(description: "\(output): refusing to write over an input\(same); choose another output")
    }
}

/// A file the command writes, opened as a normal program opens it: `open(2)` with
/// `O_CREAT | O_TRUNC`, so a symlink is written through, a character device (`/dev/null`) or a
/// FIFO is written to, and an existing file keeps its permissions and owner. Nothing is renamed
/// over the target, except for the per-input outputs of `--output-dir`, which are written
/// `atomically` (`AtomicOutput`: a temporary file beside the target, renamed onto it by
/// `close()`). Every `write(2)` is checked: a full disk or a closed pipe is an `OutputError`,
/// never a crash or a silent truncation.
final class OutputFile {
    let path: String
    private var descriptor: Int32
    private let closeWhenDone: Bool
    /// The temporary file written in place of `path` until `close()`, when atomic.
    private let temporaryPath: String?

    /// Opens (creates or truncates) `path`, after checking that it is none of `inputs`.
    /// `atomically`: writes a temporary file in `path`'s folder (created if missing) instead,
    /// renamed onto `path` by `close()` and removed if the file is dropped unclosed.
    init(path: String, inputs: InputFiles, atomically: Bool = false) throws {
        try inputs.checkNotAnInput(path)
        var temporary: String?
        let fd: Int32
        if atomically {
            try AtomicOutput.createFolder(of: path)
            let name = AtomicOutput.temporaryPath(for: path)
            temporary = name
            fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        } else {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        }
        guard fd >= 0 else { throw OutputError(description: "\(path): cannot write: \(Self.lastError())") }
        self.path = path
        descriptor = fd
        closeWhenDone = true
        temporaryPath = temporary
    }

    private init(standardOutput: Void) {
        path = "<stdout>"
        descriptor = STDOUT_FILENO
        closeWhenDone = false
        temporaryPath = nil
    }

    /// Standard output, written with the same checks.
    static func standardOutput() -> OutputFile { OutputFile(standardOutput: ()) }

    /// Writes all of `data`; throws on any write error (ENOSPC, EPIPE, EIO...).
    func write(_ data: Data) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard var base = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let n = posixWrite(descriptor, base, remaining)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw OutputError(description: "\(path): write failed: \(Self.lastError())")
                }
                remaining -= n
                base += n
            }
        }
    }

    /// Closes the file (an atomic one is then renamed onto its path); a failure to close (a
    /// delayed write error) is an error too.
    func close() throws {
        guard closeWhenDone, descriptor >= 0 else { return }
        let fd = descriptor
        descriptor = -1
        if posixClose(fd) != 0 {
            let reason = Self.lastError()
            if let temporaryPath { unlink(temporaryPath) }
            throw OutputError(description: "\(path): write failed: \(reason)")
        }
        if let temporaryPath { try AtomicOutput.commit(temporaryPath, to: path) }
    }

    deinit {
        guard closeWhenDone, descriptor >= 0 else { return }
        _ = posixClose(descriptor)
        // Dropped unclosed: an input that failed half-way leaves no output.
        if let temporaryPath { unlink(temporaryPath) }
    }

    /// Writes `bytes` to `path` (created or truncated in place, or `atomically`), checked
    /// against `inputs`.
    static func write(_ bytes: [UInt8], to path: String, inputs: InputFiles, atomically: Bool = false) throws {
        let file = try OutputFile(path: path, inputs: inputs, atomically: atomically)
        try file.write(Data(bytes))
        try file.close()
    }

    /// Throws unless `path` could be created: its folder exists and is writable (or the file
    /// exists and is writable). Checked before any input is read, without creating anything.
    static func checkWritable(_ path: String) throws {
        if access(path, F_OK) == 0 {
            guard access(path, W_OK) == 0 else { throw OutputError(description: "\(path): not writable: \(lastError())") }
            return
        }
        var folder = (path as NSString).deletingLastPathComponent
        if folder.isEmpty { folder = "." }
        guard access(folder, W_OK) == 0 else {
            throw OutputError(description: "\(path): cannot be created in \(folder): \(lastError())")
        }
    }

    static func lastError() -> String { String(cString: strerror(errno)) }
}
