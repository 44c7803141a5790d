import Foundation
import HTTPTypes
import NIOCore
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Replicas of `vision-tasks serve` (the built program, each on a free port of 127.0.0.1,
/// configured through `VISION_TASKS_*` variables as a container is) behind Debian's HAProxy on
/// 127.0.0.1: least-connection balancing, health checks on `/readyz` every 250 ms, retries of
/// refused connections and 503 answers on another replica, one replica connection per request,
/// and WebSocket-long tunnel timeouts
/// (the configuration docs/server.md shows). Its stats page (CSV) says which replicas HAProxy
/// holds up. Everything is killed at `stop()`.
final class ReplicaSet: @unchecked Sendable {
    /// A replica: its process and its own port (for its metrics, read directly).
    struct Replica {
        let name: String
        let process: ChildProcess
        let port: Int
    }

    let replicas: [Replica]
    let haproxy: ChildProcess
    /// The balancer's port: clients connect here.
    let port: Int
    let statsPort: Int
    let folder: URL

    /// HAProxy's path; skipped with a message (failing under CI) when it is not installed.
    static func haproxyPath() throws -> String {
        for path in ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        throw SharedTestData.missing("haproxy is not installed (Debian: apt-get install haproxy; scripts/test installs it)")
    }

    /// Starts `count` replicas with `arguments` added, waits until each listens, then HAProxy,
    /// and waits until HAProxy holds every replica up.
    init(count: Int, arguments: [String] = []) throws {
        let haproxyPath = try Self.haproxyPath()
        let tool = try BuiltTool.path()
        let models = try SharedTestData.installedModels().path
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("replicas-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        port = LiveStreamServer.freePort()
        statsPort = LiveStreamServer.freePort()
        var started: [Replica] = []
        var environment = ProcessInfo.processInfo.environment
        environment["VISION_TASKS_HOST"] = "127.0.0.1"
        environment["VISION_TASKS_PORT"] = "0"
        environment["VISION_TASKS_THREADS"] = "1"
        environment["VISION_TASKS_MODELS"] = models
        // Clients reach the replicas by the balancer's address.
        environment["VISION_TASKS_ALLOWED_ORIGIN"] = "http://127.0.0.1:\(port)"
        environment["VISION_TASKS_LOG_FORMAT"] = "json"
        environment["VISION_TASKS_LOG_LEVEL"] = "debug"
        do {
            for index in 1...count {
                let name = "r\(index)"
                // Each names itself on its answers (X-Vision-Tasks-Instance) by its name here.
                environment["VISION_TASKS_INSTANCE"] = name
                let process = try ChildProcess(
                    executable: tool, arguments: ["serve"] + arguments,
                    stdout: folder.appendingPathComponent("\(name).out").path,
                    stderr: folder.appendingPathComponent("\(name).err").path, environment: environment)
                _ = process.wait(seconds: 120) { ServeSignalTests.port(in: process.outputText()) != nil }
                guard let bound = ServeSignalTests.port(in: process.outputText()) else {
                    process.kill()
                    throw ServerFixture.TestFailure("replica \(name) printed no address; stderr: \(process.errorText())")
                }
                started.append(Replica(name: name, process: process, port: bound))
            }
        } catch {
            for replica in started { replica.process.kill() }
            throw error
        }
        replicas = started
        let configuration = folder.appendingPathComponent("haproxy.cfg")
        try Self.configuration(port: port, statsPort: statsPort, replicas: started.map { (name: $0.name, port: $0.port) })
            .write(to: configuration, atomically: true, encoding: .utf8)
        do {
            haproxy = try ChildProcess(
                executable: haproxyPath, arguments: ["-db", "-f", configuration.path],
                stdout: folder.appendingPathComponent("haproxy.out").path,
                stderr: folder.appendingPathComponent("haproxy.err").path)
        } catch {
            for replica in started { replica.process.kill() }
            throw error
        }
        let names = started.map(\.name)
        guard haproxy.wait(seconds: 60, until: { [statsPort] in
            (try? Self.states(statsPort: statsPort)).map { states in names.allSatisfy { states[$0] == "UP" } } ?? false
        }) else {
            let log = haproxy.errorText()
            stop()
            throw ServerFixture.TestFailure("HAProxy did not hold every replica up; its log: \(log)")
        }
    }

    /// The HAProxy configuration: docs/server.md shows the same, with real addresses.
    static func configuration(port: Int, statsPort: Int, replicas: [(name: String, port: Int)]) -> String {
        """
        global
            maxconn 1024
            # Bodies (images) up to 1 MiB are held whole, so that a request answered 503 by a
            # draining replica can be sent again to another.
            tune.bufsize 1048576

        defaults
            mode http
            timeout connect 2s
            timeout client 60s
            timeout server 60s
            # A health check's answer may take a while on a loaded machine (without this: inter).
            timeout check 2s
            # Live sessions are WebSocket tunnels that may be quiet for a while.
            timeout tunnel 1h
            timeout client-fin 5s
            timeout server-fin 5s
            option http-buffer-request
            # A new connection to a replica for each request: a WebSocket upgrade that comes as a
            # later request on a kept-alive connection is answered 307 by hummingbird-websocket.
            option http-server-close
            retries 3
            option redispatch 1
            retry-on conn-failure empty-response response-timeout 503

        frontend vision
            bind 127.0.0.1:\(port)
            default_backend replicas

        backend replicas
            balance leastconn
            option httpchk GET /readyz
            http-check expect status 200
            default-server inter 250ms fastinter 250ms downinter 500ms fall 2 rise 1
        \(replicas.map { "    server \($0.name) 127.0.0.1:\($0.port) check" }.joined(separator: "\n"))

        listen stats
            bind 127.0.0.1:\(statsPort)
            stats enable
            stats uri /stats

        """
    }

    /// Each replica's state as HAProxy's stats page says (`UP`, `DOWN`, `UP 1/2`, ...).
    static func states(statsPort: Int) throws -> [String: String] {
        let client = try RawClient(port: statsPort)
        client.setReceiveTimeout(seconds: 10)
        try client.send(Array("GET /stats;csv HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        var bytes: [UInt8] = []
        while let chunk = try client.read(count: 1) { bytes += chunk }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let start = text.range(of: "# pxname") else { return [:] }
        let lines = text[start.lowerBound...].split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        guard let header = lines.first, let status = header.firstIndex(of: "status") else { return [:] }
        var states: [String: String] = [:]
        for row in lines.dropFirst() where row.count > status && row[0] == "replicas" && row[1] != "BACKEND" {
            states[String(row[1])] = String(row[status])
        }
        return states
    }

    func states() throws -> [String: String] { try Self.states(statsPort: statsPort) }

    /// A number of a replica's `/metrics`, e.g. `vision_tasks_open_sessions` or
    /// `vision_tasks_http_requests_total{task="gesture"}` (the whole name as written there).
    static func metric(_ name: String, port: Int) async throws -> Double {
        try await HTTPTestClient(port: port).execute(uri: "/metrics", method: .get) { response in
            let text = String(buffer: response.body)
            for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
                if let value = Double(line.dropFirst(name.count + 1)) { return value }
            }
            throw ServerFixture.TestFailure("no \(name) in the metrics")
        }
    }

    /// The task requests a replica answered 200, from its JSON log lines (`answered` at debug
    /// level): they stay readable after the replica has exited.
    func answeredTaskRequests(_ replica: Replica) -> Int {
        replica.process.errorText().split(separator: "\n").filter { line in
            guard let object = try? ServerFixture.json(String(line)) else { return false }
            return object["message"] as? String == "answered" && object["route"] as? String == "/v1/{task}"
                && object["status"] as? String == "200" && object["request"] != nil
        }.count
    }

    /// Kills HAProxy and every replica still running, and removes the folder.
    func stop() {
        haproxy.kill()
        for replica in replicas { replica.process.kill() }
        try? FileManager.default.removeItem(at: folder)
    }
}
