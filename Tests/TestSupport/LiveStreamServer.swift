import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Live sources for the tests: the `ffmpeg` program serving a clip on 127.0.0.1 (HTTP MJPEG,
/// UDP MPEG-TS), free local ports, and child processes with bounded waits.
///
/// `ffmpeg` is installed by scripts/test (scripts/lib/common.sh, `vt_ensure_ffmpeg`); when it
/// is missing a test is skipped, except under CI (`CI=true`), where it fails.
public enum LiveStreamServer {
    /// The `ffmpeg` program on PATH.
    public static func ffmpeg() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        let message = "missing the ffmpeg program (scripts/test installs it: Debian package ffmpeg)"
        throw SharedTestData.missing(message)
    }

    /// Serves `clip` once as MJPEG over HTTP at `http://127.0.0.1:PORT/` in real time (`-re`),
    /// `loops` times (-1: for ever); returns when the server listens (or throws after 20 s).
    public static func startHTTPMJPEG(clip: String, port: Int, loops: Int = 0, logTo log: String) throws -> ChildProcess {
        let server = try ChildProcess(
            executable: try ffmpeg(),
            arguments: ["-nostdin", "-loglevel", "error", "-re", "-stream_loop", String(loops), "-i", clip,
                        "-an", "-c:v", "mjpeg", "-q:v", "3", "-f", "mpjpeg", "-listen", "1", "http://127.0.0.1:\(port)/"],
            stdout: log + ".out", stderr: log)
        guard waitUntilListening(tcpPort: port, seconds: 20) else {
            server.kill()
            throw ServerError(description: "ffmpeg did not listen on 127.0.0.1:\(port) within 20 s: \(server.errorText())")
        }
        return server
    }

    /// Sends `clip` as MPEG-TS (MPEG-2 video, a key frame every 0.5 s) to
    /// `udp://127.0.0.1:PORT` in real time, `loops` times (-1: for ever).
    public static func startUDPMPEGTS(clip: String, port: Int, loops: Int = -1, logTo log: String) throws -> ChildProcess {
        try ChildProcess(
            executable: try ffmpeg(),
            arguments: ["-nostdin", "-loglevel", "error", "-re", "-stream_loop", String(loops), "-i", clip,
                        "-an", "-c:v", "mpeg2video", "-q:v", "2", "-g", "15", "-f", "mpegts", "udp://127.0.0.1:\(port)?pkt_size=1316"],
            stdout: log + ".out", stderr: log)
    }

    /// A port on 127.0.0.1 free at the time of the call (TCP or UDP).
    public static func freePort(udp: Bool = false) -> Int {
        let fd = socket(AF_INET, Int32(udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return 0 }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether a socket listens on 127.0.0.1:`port`, from /proc/net/tcp (connecting to find
    /// out would take the one client `ffmpeg -listen 1` serves). Polls every 50 ms.
    public static func waitUntilListening(tcpPort port: Int, seconds: Double) -> Bool {
        let wanted = String(format: ":%04X", port)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let table = (try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)) ?? ""
            for line in table.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // local_address is 0100007F:PORT; state 0A is LISTEN.
                if fields.count > 3, fields[1].hasSuffix(wanted), fields[3] == "0A" { return true }
            }
            usleep(50_000)
        }
        return false
    }

    public struct ServerError: Error, CustomStringConvertible {
        public let description: String
    }
}

/// A child process whose output goes to files, with bounded waits.
public final class ChildProcess {
    public let process = Process()
    public let stdoutPath: String
    public let stderrPath: String

    public init(executable: String, arguments: [String], stdout: String, stderr: String, environment: [String: String]? = nil) throws {
        stdoutPath = stdout
        stderrPath = stderr
        _ = FileManager.default.createFile(atPath: stdout, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: stdout)
        process.standardError = FileHandle(forWritingAtPath: stderr)
        try process.run()
    }

    /// Sends `signal` (SIGINT, SIGTERM...) if the process still runs.
    public func send(_ signal: Int32) {
        if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
    }

    /// Waits at most `seconds` for the process to end; its exit status, or nil if it still runs.
    @discardableResult
    public func wait(seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { return nil }
        return process.terminationStatus
    }

    /// Waits at most `seconds` until `condition` holds (checked every 100 ms) or the process ends.
    public func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            if !process.isRunning { return condition() }
            usleep(100_000)
        }
        return condition()
    }

    /// Ends the process (SIGKILL) and waits for it.
    public func kill() {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    public func outputText() -> String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public func errorText() -> String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    deinit { kill() }
}
