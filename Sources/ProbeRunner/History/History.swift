public import Foundation

/// The history file of `--history FILE`: one JSON line a run, appended and flushed, never rewriting
/// earlier lines.
public struct HistoryFile: Sendable {
    public var url: URL

    public init(url: URL) { self.url = url }

    /// Appends one line for `result`.
    public func append(_ result: ProbeRunResult) throws {
        // PLACEHOLDER: the history work replaces this.
    }

    /// The last `limit` readable records, oldest first; damaged lines (a killed writer's tail) are skipped.
    public func records(last limit: Int) throws -> [HistoryRecord] {
        // PLACEHOLDER: the history work replaces this.
        []
    }
}

/// One run as the history file keeps it.
public struct HistoryRecord: Sendable, Hashable, Codable {
    public var startedAt: Date
    public var passed: Bool
    /// Per endpoint: passed, p95 (ms, `nil` with no response).
    public var endpoints: [String: EndpointSummary]

    public struct EndpointSummary: Sendable, Hashable, Codable {
        public var passed: Bool
        public var p95: Double?
        public init(passed: Bool, p95: Double?) {
            self.passed = passed
            self.p95 = p95
        }
    }

    public init(startedAt: Date, passed: Bool, endpoints: [String: EndpointSummary]) {
        self.startedAt = startedAt
        self.passed = passed
        self.endpoints = endpoints
    }
}

/// Compares a run's p95 per endpoint with the median p95 of the last runs.
public enum RegressionDetector {
    public static func regressions(in result: ProbeRunResult, history: [HistoryRecord], policy: RegressionPolicy)
        -> [Regression]
    {
        // PLACEHOLDER: the history work replaces this.
        []
    }

    /// Consecutive failed rounds per endpoint at the end of `history` (for the down-after damper across cron runs).
    public static func consecutiveFailures(in history: [HistoryRecord]) -> [String: Int] {
        // PLACEHOLDER: the history work replaces this.
        [:]
    }
}

/// Pushes Prometheus text to a Pushgateway (`PUT /metrics/job/<job>`), as batch jobs report to Prometheus.
public struct PushgatewayClient: Sendable {
    public var url: URL
    public var job: String

    public init(url: URL, job: String = "apiprobe") {
        self.url = url
        self.job = job
    }

    public func push(_ metrics: String) async throws {
        // PLACEHOLDER: the history work replaces this.
    }
}
