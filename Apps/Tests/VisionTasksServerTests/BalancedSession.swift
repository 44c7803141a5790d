import Foundation
import NIOCore
import NIOWebSocket

/// A live-session client through a load balancer that does what the demo page does: it sends a
/// frame, waits for its answer, sends the next; when its session is closed (1001 from a
/// draining replica, or the connection lost) it waits 250 ms ±30 % and connects again, and
/// goes on. It records each close and the time from the close to the first answer of the new
/// session. Bounded: at most `maxConnects` connections and `timeLimit` in all.
final class BalancedSession: @unchecked Sendable {
    /// A close of its session.
    struct Close: Sendable {
        /// The close frame's code; nil when the connection ended without one.
        var code: WebSocketErrorCode?
        var reason: String?
    }

    private let lock = NSLock()
    private var _closes: [Close] = []
    private var _reconnectTimes: [Duration] = []
    private var _results = 0
    private var _failedConnects: [String] = []
    private var _connected = false
    private var stopped = false

    var closes: [Close] { lock.withLock { _closes } }
    /// From each close to the first answer of the session after it.
    var reconnectTimes: [Duration] { lock.withLock { _reconnectTimes } }
    var results: Int { lock.withLock { _results } }
    /// Connections refused or lost before their `ready` answer.
    var failedConnects: [String] { lock.withLock { _failedConnects } }
    /// Whether a session is open and has answered a frame.
    var connected: Bool { lock.withLock { _connected } }

    /// Ends the loop after the answer it waits for.
    func stop() { lock.withLock { stopped = true } }
    private var isStopped: Bool { lock.withLock { stopped } }

    /// Runs until `stop()`, `timeLimit` or `maxConnects` connections.
    func run(port: Int, frame jpeg: Data, pause: Duration = .milliseconds(20), timeLimit: Duration = .seconds(120), maxConnects: Int = 20) async {
        let clock = ContinuousClock()
        let deadline = clock.now + timeLimit
        var timestamp = 1
        var closedAt: ContinuousClock.Instant?
        for _ in 0..<maxConnects where !isStopped && clock.now < deadline {
            let client: LiveClient
            do {
                client = try await offThePool { try LiveClient(port: port, query: "task=gesture", receiveTimeout: 30) }
            } catch {
                lock.withLock { _failedConnects.append("\(error)") }
                try? await Task.sleep(for: .milliseconds(250))
                continue
            }
            var reader = LiveReader(client: client)
            var ready = false
            do {
                _ = try await reader.next(type: "ready")
                ready = true
                while !isStopped, clock.now < deadline {
                    try await client.write(.binary(ServerFixture.frame(jpeg, timestamp: timestamp)))
                    timestamp += 1
                    guard let answer = try await reader.next() else { break }
                    if answer["type"] as? String == "result" {
                        let now = clock.now
                        lock.withLock {
                            _results += 1
                            _connected = true
                            if let closed = closedAt { _reconnectTimes.append(now - closed) }
                        }
                        closedAt = nil
                    }
                    try await Task.sleep(for: pause)
                }
            } catch {
                // A connection lost mid-session (a killed replica) ends it as a close does.
                if !ready { lock.withLock { _failedConnects.append("\(error)") } }
            }
            if isStopped || clock.now >= deadline {
                _ = try? await client.finish()
                return
            }
            guard ready else {
                client.abort()
                try? await Task.sleep(for: .milliseconds(250))
                continue
            }
            let close = client.close
            client.abort()
            closedAt = closedAt ?? clock.now
            lock.withLock {
                _closes.append(Close(code: close?.closeCode, reason: close?.reason))
                _connected = false
            }
            // As the demo page: 250 ms ±30 % before the first new attempt.
            try? await Task.sleep(for: .milliseconds(Int.random(in: 175...325)))
        }
    }
}
