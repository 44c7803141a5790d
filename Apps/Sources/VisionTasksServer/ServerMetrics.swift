import CoreMetrics
import Foundation
import Prometheus

/// The server's metrics through swift-metrics, collected by swift-prometheus into the server's
/// own registry (not the process-wide `MetricsSystem`, so that several servers, as in tests, do
/// not share counts) and served at `GET /metrics` in Prometheus' text format.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let sessions: Meter
    private let sessionsRefused: CoreMetrics.Counter
    private let processed: [TaskKind: CoreMetrics.Counter]
    private let dropped: [TaskKind: CoreMetrics.Counter]
    private let processing: [TaskKind: CoreMetrics.Timer]
    private let requests: [TaskKind: CoreMetrics.Counter]
    private let connections: Meter
    private let sessionLimit: Meter
    private let requestsInProgress: Meter
    private let requestLimit: Meter

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Per-frame work on a CPU is milliseconds to a second.
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(35), .milliseconds(50),
            .milliseconds(75), .milliseconds(100), .milliseconds(150), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2),
        ]
        self.factory = factory
        sessions = Meter(label: "vision_tasks_open_sessions", factory: factory)
        sessionsRefused = CoreMetrics.Counter(label: "vision_tasks_sessions_refused_total", factory: factory)
        func perTask<M>(_ make: (TaskKind) -> M) -> [TaskKind: M] {
            Dictionary(uniqueKeysWithValues: TaskKind.allCases.map { ($0, make($0)) })
        }
        processed = perTask {
            CoreMetrics.Counter(label: "vision_tasks_frames_processed_total", dimensions: [("task", $0.rawValue)], factory: factory)
        }
        dropped = perTask {
            CoreMetrics.Counter(label: "vision_tasks_frames_dropped_total", dimensions: [("task", $0.rawValue)], factory: factory)
        }
        processing = perTask {
            CoreMetrics.Timer(label: "vision_tasks_processing_seconds", dimensions: [("task", $0.rawValue)], factory: factory)
        }
        requests = perTask {
            CoreMetrics.Counter(label: "vision_tasks_http_requests_total", dimensions: [("task", $0.rawValue)], factory: factory)
        }
        connections = Meter(label: "vision_tasks_open_connections", factory: factory)
        sessionLimit = Meter(label: "vision_tasks_max_sessions", factory: factory)
        requestsInProgress = Meter(label: "vision_tasks_http_requests_in_progress", factory: factory)
        requestLimit = Meter(label: "vision_tasks_max_pending_requests", factory: factory)
        // Touch the counters of fixed label sets so that every one shows in /metrics from the start.
        for code in ServerError.Code.allCases {
            error(code).increment(by: 0)
        }
        for reason in ConnectionRegistry.CloseReason.allCases {
            closedConnections(reason).increment(by: 0)
        }
        sessions.set(0)
        connections.set(0)
        requestsInProgress.set(0)
    }

    /// The limits beside the counts they cap (`vision_tasks_max_sessions`,
    /// `vision_tasks_max_pending_requests`), so that a dashboard or an autoscaler reads the
    /// fraction in use from one scrape.
    func setLimits(sessions: Int, pendingRequests: Int) {
        sessionLimit.set(sessions)
        requestLimit.set(pendingRequests)
    }

    /// HTTP task requests in progress (admitted, not yet answered), as read when `/metrics` is
    /// scraped.
    func setInProgress(requests: Int) { requestsInProgress.set(requests) }

    func sessionOpened() { sessions.increment() }
    func sessionClosed() { sessions.decrement() }
    func sessionRefused() { sessionsRefused.increment() }

    /// A frame or request processed by `task` in `seconds` (decoding included).
    func processedFrame(_ task: TaskKind, seconds: Double, live: Bool) {
        (live ? processed : requests)[task]?.increment()
        processing[task]?.recordNanoseconds(Int64(seconds * 1e9))
    }

    func droppedFrame(_ task: TaskKind) { dropped[task]?.increment() }

    /// An error answered to a client.
    func error(_ code: ServerError.Code) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: "vision_tasks_errors_total", dimensions: [("code", code.rawValue)], factory: factory)
    }

    func recordError(_ code: ServerError.Code) { error(code).increment() }

    func connectionOpened() { connections.increment() }
    func connectionGone() { connections.decrement() }

    /// Connections the server closed, by why.
    private func closedConnections(_ reason: ConnectionRegistry.CloseReason) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: "vision_tasks_connections_closed_total", dimensions: [("reason", reason.rawValue)], factory: factory)
    }

    func connectionClosed(_ reason: ConnectionRegistry.CloseReason) { closedConnections(reason).increment() }

    /// An HTTP answer: its route (the router's pattern, e.g. `/v1/{task}`, or `NotFound`: a
    /// fixed set, never the client's path), its status, and the time from the request's head
    /// to the answer.
    func answered(route: String, status: Int, nanoseconds: UInt64) {
        CoreMetrics.Counter(
            label: "vision_tasks_http_responses_total", dimensions: [("route", route), ("status", String(status))], factory: factory
        ).increment()
        CoreMetrics.Timer(label: "vision_tasks_http_request_seconds", dimensions: [("route", route)], factory: factory)
            .recordNanoseconds(Int64(clamping: nanoseconds))
    }

    /// Everything in Prometheus' text exposition format.
    func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
