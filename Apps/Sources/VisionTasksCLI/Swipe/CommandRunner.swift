import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `--exec` commands of `vision-tasks swipe`: `/bin/sh -c COMMAND` per event, each
///
/// - with no descriptor of ours but stdin, stdout and stderr (a command inherited the open
///   socket of a live source, and with it the power to read or close it);
/// - in a process group of its own, with the default actions of every signal, so that the
///   command and whatever it starts can be signalled together;
/// - stopped when it runs over `timeout` (SIGTERM to its group, SIGKILL `killGrace` later);
/// - and never left behind: `terminateAll` signals every running command's group (when
///   vision-tasks itself is stopped by a signal) and `waitForAll` reaps them.
///
/// Each running command has a thread blocked in `waitpid` for it (at most
/// `EventOutput.maxRunningCommands` of them).
final class CommandRunner: @unchecked Sendable {
    /// How long a command has after SIGTERM (a timeout, a stop) before SIGKILL.
    static let killGrace: Double = 2

    private let timeout: Double?
    private let lock = NSLock()
    private var running: [pid_t: DispatchWorkItem] = [:]
    /// Set once `terminateAll` or `killAll` was called.
    private var stopping = false
    private let finished = DispatchGroup()

    /// `timeout` in seconds; nil: no limit.
    init(timeout: Double?) {
        self.timeout = timeout
    }

    /// How a command ended.
    enum Outcome: Equatable {
        case exited(Int32)
        case signalled(Int32)
        /// It ran over the timeout and was stopped.
        case timedOut
        /// `terminateAll` or `killAll` stopped it (vision-tasks itself was asked to stop).
        case stopped
    }

    /// Starts `/bin/sh -c command` with `environment`; `ended` is called (on another thread)
    /// when it has ended and been reaped. Throws when it cannot be started.
    func start(_ command: String, environment: [String: String], ended: @escaping @Sendable (Outcome) -> Void) throws {
        let pid = try Self.spawn(["/bin/sh", "-c", command], environment: environment)
        let timedOut = ManagedFlag()
        let stopper = DispatchWorkItem { [weak self] in
            timedOut.set()
            self?.stop(pid)
        }
        lock.withLock { running[pid] = stopper }
        finished.enter()
        if let timeout {
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: stopper)
        }
        Thread.detachNewThread { [self] in
            // Wait for the end without reaping, so that the pid (and its group) is never reused
            // while it is still in `running`, where the signals below find it.
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
            let stopped = lock.withLock {
                running[pid]?.cancel()
                running[pid] = nil
                return stopping
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            let outcome: Outcome
            if timedOut.isSet {
                outcome = .timedOut
            } else if stopped, status & 0x7F != 0 {
                outcome = .stopped
            } else if status & 0x7F == 0 {
                outcome = .exited((status >> 8) & 0xFF)
            } else {
                outcome = .signalled(status & 0x7F)
            }
            ended(outcome)
            finished.leave()
        }
    }

    /// Commands running now.
    var runningCount: Int { lock.withLock { running.count } }

    /// Sends `signal` to every running command's group, then SIGKILL to those still running
    /// `killGrace` seconds later.
    func terminateAll(with signal: Int32 = SIGTERM) {
        let pids = Set(lock.withLock {
            stopping = true
            return Array(running.keys)
        })
        signalGroups(signal) { pids.contains($0) }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.killGrace) { [self] in
            signalGroups(SIGKILL) { pids.contains($0) }
        }
    }

    /// SIGKILL to every running command's group, at once.
    func killAll() {
        lock.withLock { stopping = true }
        signalGroups(SIGKILL) { _ in true }
    }

    /// Signals the groups of the running commands that `which` picks; under the lock, so never
    /// a command already reaped (whose pid the system may have given to another process).
    private func signalGroups(_ signal: Int32, which: (pid_t) -> Bool) {
        lock.withLock {
            for pid in running.keys where which(pid) { _ = kill(-pid, signal) }
        }
    }

    /// Waits until every command started has ended and been reaped.
    func waitForAll() { finished.wait() }

    /// Waits at most `seconds`; whether every command has ended.
    func waitForAll(seconds: Double) -> Bool { finished.wait(timeout: .now() + seconds) == .success }

    /// SIGTERM to the command's group, SIGKILL after `killGrace` if it still runs.
    private func stop(_ pid: pid_t) {
        signalGroups(SIGTERM) { $0 == pid }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.killGrace) { [self] in
            signalGroups(SIGKILL) { $0 == pid }
        }
    }

    /// `posix_spawn` of `arguments` in a new process group, every signal at its default action
    /// and unblocked, descriptors from 3 up closed in the child.
    static func spawn(_ arguments: [String], environment: [String: String]) throws -> pid_t {
        #if os(Linux)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #else
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        #if os(Linux)
        if let closeFrom = addCloseFrom {
            guard closeFrom(&actions, 3) == 0 else { throw CommandError.cannotStart("posix_spawn_file_actions_addclosefrom_np failed") }
        } else {
            markDescriptorsCloseOnExec()
        }
        #else
        markDescriptorsCloseOnExec()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard status == 0 else { throw CommandError.cannotStart(String(cString: strerror(status))) }
        return pid
    }

    #if os(Linux)
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's
    /// Glibc module does not declare; nil where the C library has none.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
    #endif

    /// Without `addclosefrom`: every open descriptor from 3 up gets close-on-exec.
    private static func markDescriptorsCloseOnExec() {
        let folder = FileManager.default.fileExists(atPath: "/proc/self/fd") ? "/proc/self/fd" : "/dev/fd"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let fd = Int32(name), fd > 2 else { continue }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    enum CommandError: Error, CustomStringConvertible {
        case cannotStart(String)
        var description: String {
            switch self {
            case .cannotStart(let reason): return "cannot start /bin/sh: \(reason)"
            }
        }
    }
}

/// A flag set once, from any thread.
private final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
