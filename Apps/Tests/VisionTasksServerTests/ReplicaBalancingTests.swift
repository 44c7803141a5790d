import Foundation
import HTTPTypes
import NIOCore
import NIOWebSocket
import TestSupport
import XCTest

@testable import VisionTasksServer

#if canImport(Glibc)
import Glibc
#endif

/// Two `vision-tasks serve` replicas behind HAProxy (`ReplicaSet`): live sessions and HTTP
/// requests are spread over both; SIGTERM to one under load moves its sessions to the other
/// (each closed with 1001, served again through the balancer within 2 s, the bound the server's
/// docs promise) while no HTTP client sees a 5xx or a reset and no request is answered twice;
/// a replica killed with SIGKILL is marked down and the other carries on. Which replica served
/// is read from each replica's own metrics and JSON log lines. Every client loop is bounded in
/// count and time; the measured times are printed.
final class ReplicaBalancingTests: XCTestCase {
    func testSessionsAndRequestsSpreadOverBothReplicas() async throws {
        let set = try ReplicaSet(count: 2)
        defer { set.stop() }
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        let (sessions, running) = try await Self.openSessions(through: set, frame: jpeg)

        let open = try await Self.metrics("vision_tasks_open_sessions", set)
        XCTAssertEqual(open.reduce(0, +), 4, "sessions per replica: \(open)")
        XCTAssertTrue(open.allSatisfy { $0 >= 1 }, "each replica holds sessions: \(open)")

        let client = HTTPTestClient(port: set.port)
        var statuses: [Int] = []
        // Through the balancer, each answer names the replica that gave it.
        var instances: [String: Double] = [:]
        for _ in 0..<20 {
            let (status, instance) = try await client.execute(uri: "/v1/gesture", method: .post, body: ByteBuffer(bytes: jpeg)) {
                ($0.status.code, $0.headers[.visionTasksInstance] ?? "none")
            }
            statuses.append(status)
            instances[instance, default: 0] += 1
        }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 20))
        let requests = try await Self.metrics(#"vision_tasks_http_requests_total{task="gesture"}"#, set)
        XCTAssertEqual(requests.reduce(0, +), 20, "requests per replica: \(requests)")
        XCTAssertTrue(requests.allSatisfy { $0 >= 1 }, "each replica answered requests: \(requests)")
        XCTAssertEqual(instances, ["r1": requests[0], "r2": requests[1]], "X-Vision-Tasks-Instance against each replica's count")

        await Self.stop(sessions, running)
        XCTAssertEqual(sessions.flatMap(\.closes).count, 0)
        XCTAssertEqual(sessions.flatMap(\.failedConnects), [])
        // The JSON log lines (VISION_TASKS_LOG_FORMAT=json): one `answered` per request, with its
        // request id, and the live sessions' lines with theirs.
        XCTAssertEqual(set.replicas.map { set.answeredTaskRequests($0) }.reduce(0, +), 20)
        let sessionLines = set.replicas.flatMap { $0.process.errorText().split(separator: "\n") }
            .compactMap { try? ServerFixture.json(String($0)) }
            .filter { $0["message"] as? String == "live session opened" }
        XCTAssertEqual(sessionLines.count, 4)
        XCTAssertEqual(Set(sessionLines.compactMap { $0["session"] as? String }).count, 4, "one id per session")
    }

    func testSIGTERMMovesTheReplicasSessionsToTheOtherWithoutAnHTTPError() async throws {
        let set = try ReplicaSet(count: 2, arguments: ["--drain-seconds", "5"])
        defer { set.stop() }
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        let (sessions, running) = try await Self.openSessions(through: set, frame: jpeg)
        let draining = set.replicas[0], staying = set.replicas[1]
        let held = try await ReplicaSet.metric("vision_tasks_open_sessions", port: draining.port)
        XCTAssertGreaterThanOrEqual(held, 1, "the replica to drain holds a session")

        let posters = (0..<2).map { _ in HTTPLoop() }
        let posting = posters.map { poster in Task { await poster.run(port: set.port, body: jpeg) } }
        try await Self.waitUntil("HTTP answers before the signal") { posters.allSatisfy { $0.answered >= 3 } }

        let signalled = ContinuousClock.now
        draining.process.send(SIGTERM)
        // A blocking wait: the replica is another process.
        let status = draining.process.wait(seconds: 60)
        let drained = ContinuousClock.now - signalled
        XCTAssertEqual(status, 0, "exit status after SIGTERM; stderr tail: \(draining.process.errorText().suffix(2000))")
        try await Self.waitUntil("every session answers again") {
            sessions.allSatisfy(\.connected) && sessions.flatMap(\.closes).count >= Int(held)
        }
        let stayingSessions = try await ReplicaSet.metric("vision_tasks_open_sessions", port: staying.port)
        // HTTP clients go on a moment with one replica left.
        let answeredBefore = posters.map(\.answered).reduce(0, +)
        try await Self.waitUntil("HTTP answers after the drain") { posters.map(\.answered).reduce(0, +) >= answeredBefore + 4 }
        for poster in posters { poster.stop() }
        for task in posting { await task.value }
        await Self.stop(sessions, running)

        let closes = sessions.flatMap(\.closes)
        XCTAssertEqual(closes.count, Int(held), "each of the drained replica's sessions was closed once: \(closes)")
        for close in closes {
            XCTAssertEqual(close.code, .goingAway)
            XCTAssertEqual(close.reason, "server shutting down")
        }
        let times = sessions.flatMap(\.reconnectTimes)
        XCTAssertEqual(times.count, Int(held))
        for time in times { XCTAssertLessThan(time, .seconds(2), "from 1001 to an answer through the balancer: \(times)") }
        XCTAssertEqual(sessions.flatMap(\.failedConnects), [], "no new session refused")
        XCTAssertEqual(stayingSessions, 4)

        let statuses = posters.flatMap(\.statuses)
        XCTAssertEqual(statuses.filter { $0 != 200 }, [], "every HTTP request answered 200")
        XCTAssertEqual(posters.flatMap(\.failures), [], "no HTTP client saw a reset or a cut answer")
        // Nothing answered twice: the replicas' `answered` log lines are the clients' answers.
        XCTAssertEqual(set.replicas.map { set.answeredTaskRequests($0) }.reduce(0, +), statuses.count)
        print("""
            replicas behind HAProxy, SIGTERM: \(Int(held)) session(s) moved; from 1001 to an answer: \
            \(times.map { "\(Int($0 / .milliseconds(1))) ms" }.joined(separator: ", ")); the replica exited after \
            \(Int(drained / .milliseconds(1))) ms; \(statuses.count) HTTP requests, all 200
            """)
    }

    func testASIGKILLedReplicaIsMarkedDownAndTheOtherCarriesOn() async throws {
        let set = try ReplicaSet(count: 2)
        defer { set.stop() }
        let jpeg = try ServerFixture.still("hand_thumb_up_left_01.jpg")
        let (sessions, running) = try await Self.openSessions(through: set, frame: jpeg)
        let killed = set.replicas[1], staying = set.replicas[0]
        let held = try await ReplicaSet.metric("vision_tasks_open_sessions", port: killed.port)
        XCTAssertGreaterThanOrEqual(held, 1, "the replica to kill holds a session")

        let killedAt = ContinuousClock.now
        killed.process.kill()
        try await Self.waitUntil("HAProxy marks the killed replica down") { (try? set.states())?[killed.name] == "DOWN" }
        let markedDown = ContinuousClock.now - killedAt
        try await Self.waitUntil("every session answers again") {
            sessions.allSatisfy(\.connected) && sessions.flatMap(\.closes).count >= Int(held)
        }
        // "UP", or "UP 1/2" after one slow health check on a loaded machine.
        let states = try set.states()
        XCTAssertEqual(states[staying.name]?.hasPrefix("UP"), true, "\(states)")
        let stayingSessions = try await ReplicaSet.metric("vision_tasks_open_sessions", port: staying.port)
        XCTAssertEqual(stayingSessions, 4)
        let client = HTTPTestClient(port: set.port)
        for _ in 0..<5 {
            let status = try await client.execute(uri: "/v1/gesture", method: .post, body: ByteBuffer(bytes: jpeg)) { $0.status.code }
            XCTAssertEqual(status, 200)
        }
        await Self.stop(sessions, running)

        let closes = sessions.flatMap(\.closes)
        XCTAssertEqual(closes.count, Int(held), "each of the killed replica's sessions ended once: \(closes)")
        let times = sessions.flatMap(\.reconnectTimes)
        XCTAssertEqual(times.count, Int(held))
        print("""
            replicas behind HAProxy, SIGKILL: \(Int(held)) session(s) moved; from the lost connection to an answer: \
            \(times.map { "\(Int($0 / .milliseconds(1))) ms" }.joined(separator: ", ")); marked down after \
            \(Int(markedDown / .milliseconds(1))) ms
            """)
    }

    /// Four live sessions through the balancer, each answered once: the sessions and the tasks
    /// that run them.
    static func openSessions(through set: ReplicaSet, frame: Data) async throws -> ([BalancedSession], [Task<Void, Never>]) {
        let sessions = (0..<4).map { _ in BalancedSession() }
        let running = sessions.map { session in Task { await session.run(port: set.port, frame: frame) } }
        try await waitUntil("every session answers") { sessions.allSatisfy(\.connected) }
        return (sessions, running)
    }

    /// Stops `sessions` and waits for their tasks to end.
    static func stop(_ sessions: [BalancedSession], _ running: [Task<Void, Never>]) async {
        for session in sessions { session.stop() }
        for task in running { await task.value }
    }

    /// A number of each replica's metrics, in the set's order.
    static func metrics(_ name: String, _ set: ReplicaSet) async throws -> [Double] {
        var values: [Double] = []
        for replica in set.replicas { values.append(try await ReplicaSet.metric(name, port: replica.port)) }
        return values
    }

    /// Polls `condition` every 50 ms; fails after 60 s (a hang, not a measured bound).
    static func waitUntil(_ what: String, _ condition: () throws -> Bool) async throws {
        for _ in 0..<1200 {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerFixture.TestFailure("not within 60 s: \(what)")
    }
}

/// An HTTP client posting an image again and again through the balancer (one connection per
/// request), recording each status and each failure (a reset, a cut answer); at most
/// `maxRequests` requests and `timeLimit`.
final class HTTPLoop: @unchecked Sendable {
    private let lock = NSLock()
    private var _statuses: [Int] = []
    private var _failures: [String] = []
    private var stopped = false

    var statuses: [Int] { lock.withLock { _statuses } }
    var failures: [String] { lock.withLock { _failures } }
    var answered: Int { lock.withLock { _statuses.count } }
    func stop() { lock.withLock { stopped = true } }

    func run(port: Int, body: Data, maxRequests: Int = 2000, timeLimit: Duration = .seconds(120)) async {
        let client = HTTPTestClient(port: port)
        let deadline = ContinuousClock.now + timeLimit
        for _ in 0..<maxRequests where !lock.withLock({ stopped }) && ContinuousClock.now < deadline {
            do {
                let status = try await client.execute(uri: "/v1/gesture", method: .post, body: ByteBuffer(bytes: body)) { $0.status.code }
                lock.withLock { _statuses.append(status) }
            } catch {
                lock.withLock { _failures.append("\(error)") }
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
