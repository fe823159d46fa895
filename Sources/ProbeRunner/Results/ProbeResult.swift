import APIProbeShared
package import Foundation
import HTTPFixtures
package import JSONShape
package import ProbeClient

/// The outcome of one `apiprobe run` round: what every report renders.
package struct ProbeRunResult: Sendable, Hashable {
    package var startedAt: Date
    /// Wall time of the whole round.
    package var duration: Duration
    /// The config file the round ran from.
    package var configFile: String
    package var endpoints: [EndpointResult]
    /// Slowdowns against the history file (empty without `--history` or with too little history).
    package var regressions: [Regression]
    /// `true` when the overall deadline ended the round before every endpoint finished.
    package var hitDeadline: Bool
    /// Endpoints this round left alone because a maintenance window contained its start (config order).
    package var inMaintenance: [String] = []

    package init(
        startedAt: Date,
        duration: Duration,
        configFile: String,
        endpoints: [EndpointResult],
        regressions: [Regression] = [],
        hitDeadline: Bool = false
    ) {
        self.startedAt = startedAt
        self.duration = duration
        self.configFile = configFile
        self.endpoints = endpoints
        self.regressions = regressions
        self.hitDeadline = hitDeadline
    }

    /// Every endpoint passed and no regression was found.
    package var passed: Bool { endpoints.allSatisfy(\.passed) && regressions.isEmpty }

    /// Whether an endpoint passed this run: its checks held and its latency did not regress. The one rule every
    /// report's per-endpoint mark and count uses, so no row shows ✓ in a run that fails because of it.
    package func passed(_ endpoint: EndpointResult) -> Bool {
        endpoint.passed && !regressions.contains { $0.endpoint == endpoint.name }
    }
}

/// One endpoint's samples, statistics and checks.
package struct EndpointResult: Sendable, Hashable {
    package var name: String
    package var method: String
    /// The URL probed, with credentials in the query redacted.
    package var url: String
    package var samples: [Sample]
    /// Latency statistics over the samples that got a response (`nil` when none did).
    package var latency: LatencyStats?
    /// Time-to-first-byte statistics, where the platform reports it.
    package var timeToFirstByte: LatencyStats?
    package var checks: [CheckResult]
    /// Schema drift found against the endpoint's snapshot (empty when none or no snapshot).
    package var schemaChanges: [SchemaChange]
    /// Phase timings (DNS, connect, TLS, processing, transfer) over the answered samples.
    package var phases: PhaseStats?
    /// What the TLS handshake showed (`https` endpoints that completed one).
    package var tls: TLSReport?
    /// Consecutive failed rounds so far, this one included (0 when this round passed).
    package var consecutiveFailures: Int
    /// Consecutive rounds without a usable answer so far (``answered`` false), this one included.
    var consecutiveOutages = 0
    /// Whether the endpoint counts as down: `consecutiveOutages >= downAfter` (an endpoint that answers but fails
    /// another check is degraded, not down).
    package var isDown: Bool

    package init(
        name: String,
        method: String,
        url: String,
        samples: [Sample],
        latency: LatencyStats?,
        timeToFirstByte: LatencyStats? = nil,
        checks: [CheckResult],
        schemaChanges: [SchemaChange] = [],
        consecutiveFailures: Int = 0,
        isDown: Bool = false,
        phases: PhaseStats? = nil,
        tls: TLSReport? = nil
    ) {
        self.phases = phases
        self.tls = tls
        self.name = name
        self.method = method
        self.url = url
        self.samples = samples
        self.latency = latency
        self.timeToFirstByte = timeToFirstByte
        self.checks = checks
        self.schemaChanges = schemaChanges
        self.consecutiveFailures = consecutiveFailures
        self.isDown = isDown
    }

    /// Every check held.
    package var passed: Bool { checks.allSatisfy(\.passed) }
    /// Whether the endpoint gave a usable answer: no failed check means it is down (``FailureCategory/meansDown``).
    /// An endpoint that answered but failed another check is degraded.
    var answered: Bool { !checks.contains { !$0.passed && $0.category?.meansDown == true } }
    /// Whether every failed check is rate limiting (429, or 503 with `Retry-After`): a round that counts neither
    /// way.
    var onlyRateLimited: Bool {
        !passed && checks.filter { !$0.passed }.allSatisfy { $0.category == .rateLimited }
    }
    /// Samples that ended in a transport error (no response, connection or answer).
    package var errors: Int { samples.filter { !$0.answered }.count }
    /// How many samples got each status.
    package var statusCodes: [Int: Int] {
        samples.reduce(into: [:]) { counts, sample in sample.status.map { counts[$0, default: 0] += 1 } }
    }
    /// Retries made after transport errors, over all samples.
    package var retries: Int { samples.reduce(0) { $0 + $1.retries } }
    /// Samples answered 429 or 503 with `Retry-After`: rate limiting, not an outage.
    package var rateLimited: Int { samples.filter(\.wasRateLimited).count }
    /// Samples that were redirected.
    package var redirects: Int { samples.filter { $0.redirectedTo != nil }.count }
    /// The first failed check's category, for a one-word summary.
    package var failureCategory: FailureCategory? { checks.first { !$0.passed }?.category }
}

/// One request (with its retries) and what came back.
package struct Sample: Sendable, Hashable {
    /// The HTTP status; `nil` after a transport error, and for `tcp://`, `tls://` and `dns://` endpoints.
    package var status: Int?
    /// From sending the request to the last byte of the body, monotonic clock (of the last attempt).
    package var latency: Duration
    /// To the response head, where the platform reports it.
    package var timeToFirstByte: Duration?
    /// Body size in bytes.
    package var bytes: Int
    /// Retries made after transport errors.
    package var retries: Int
    /// The final URL when the request was redirected.
    package var redirectedTo: String? { redirects.last }
    /// Every URL the redirects led to, in order, when they were followed (credentials in queries redacted).
    package var redirects: [String]
    /// Where the time went (`nil` when nothing was sent).
    package var phases: PhaseTimings?
    /// 429 or 503 with `Retry-After`.
    var wasRateLimited: Bool
    /// The transport error, classified, when there was no response.
    package var failure: ProbeFailure?
    /// A `dns://` endpoint's answer: its response code and records.
    package var dns: DNSAnswer?

    /// The sample got its answer (an HTTP response, an open connection, a DNS answer): no transport error.
    package var answered: Bool { failure == nil }

    package init(
        status: Int?,
        latency: Duration,
        timeToFirstByte: Duration? = nil,
        bytes: Int = 0,
        retries: Int = 0,
        redirects: [String] = [],
        wasRateLimited: Bool = false,
        failure: ProbeFailure? = nil,
        phases: PhaseTimings? = nil,
        dns: DNSAnswer? = nil
    ) {
        self.dns = dns
        self.redirects = redirects
        self.phases = phases
        self.status = status
        self.latency = latency
        self.timeToFirstByte = timeToFirstByte
        self.bytes = bytes
        self.retries = retries
        self.wasRateLimited = wasRateLimited
        self.failure = failure
    }
}

/// One check of an endpoint: `status 200-299`, `/count > 0`, `schema Snapshots/recipes/search.schema.json`,
/// `latency p95 < 300ms`, `reachable`.
package struct CheckResult: Sendable, Hashable {
    package var name: String
    package var passed: Bool
    /// Why it failed (or a note when it passed): `p95 was 315.2 ms`.
    package var message: String?
    /// Set when it failed.
    package var category: FailureCategory?

    package init(name: String, passed: Bool, message: String? = nil, category: FailureCategory? = nil) {
        self.name = name
        self.passed = passed
        self.message = message
        self.category = category
    }
}

/// A slowdown against history: this run's p95 beside the median p95 of the last runs.
package struct Regression: Sendable, Hashable {
    package var endpoint: String
    package var p95: Double
    package var baselineMedian: Double
    package var factor: Double
    package var runs: Int

    package init(endpoint: String, p95: Double, baselineMedian: Double, factor: Double, runs: Int) {
        self.endpoint = endpoint
        self.p95 = p95
        self.baselineMedian = baselineMedian
        self.factor = factor
        self.runs = runs
    }
}

/// Latency statistics in milliseconds, from the exact samples (no histogram buckets).
///
/// Percentiles interpolate linearly between the two nearest ranks (the R-7 / NumPy default), so the
/// p50 of an even count is the mean of the middle two.
package struct LatencyStats: Sendable, Hashable {
    package var count: Int
    package var min: Double
    package var p50: Double
    package var p90: Double
    package var p95: Double
    package var p99: Double
    package var max: Double
    package var mean: Double

    /// `nil` for no samples.
    package init?(milliseconds samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        count = sorted.count
        min = sorted[0]
        max = sorted[sorted.count - 1]
        mean = sorted.reduce(0, +) / Double(sorted.count)
        p50 = Self.percentile(50, ofSorted: sorted)
        p90 = Self.percentile(90, ofSorted: sorted)
        p95 = Self.percentile(95, ofSorted: sorted)
        p99 = Self.percentile(99, ofSorted: sorted)
    }

    /// `nil` for no samples.
    init?(durations: [Duration]) {
        self.init(milliseconds: durations.map(\.milliseconds))
    }

    /// The value at percentile `p` (0...100) of sorted samples, interpolating between ranks.
    package static func percentile(_ p: Double, ofSorted sorted: [Double]) -> Double {
        precondition(!sorted.isEmpty)
        let rank = Swift.min(Swift.max(p, 0), 100) / 100 * Double(sorted.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (rank - Double(lower))
    }
}

extension ProbeRunResult {
    /// This result with every secret `redactor` knows masked in every string it holds (names, URLs, check
    /// names and messages, schema changes), so every report, history line and pushed metric made from it is.
    func redacted(by redactor: Redactor) -> ProbeRunResult {
        func mask(_ text: String) -> String { redactor.redact(text: text) }
        var result = self
        result.configFile = mask(configFile)
        result.endpoints = endpoints.map { endpoint in
            var endpoint = endpoint
            endpoint.name = mask(endpoint.name)
            endpoint.method = mask(endpoint.method)
            endpoint.url = redactor.redactURL(endpoint.url)
            endpoint.samples = endpoint.samples.map { sample in
                var sample = sample
                sample.redirects = sample.redirects.map { redactor.redactURL($0) }
                sample.failure = sample.failure.map {
                    ProbeFailure(category: $0.category, message: mask($0.message), tlsReason: $0.tlsReason)
                }
                sample.dns = sample.dns.map { answer in
                    var answer = answer
                    answer.records = answer.records.map { record in
                        var record = record
                        record.name = mask(record.name)
                        record.value = mask(record.value)
                        return record
                    }
                    return answer
                }
                return sample
            }
            endpoint.tls = endpoint.tls.map { tls in
                var tls = tls
                tls.subject = mask(tls.subject)
                tls.issuer = mask(tls.issuer)
                tls.expiresFirst = tls.expiresFirst.map(mask)
                return tls
            }
            endpoint.checks = endpoint.checks.map { check in
                CheckResult(
                    name: mask(check.name), passed: check.passed, message: check.message.map(mask),
                    category: check.category)
            }
            endpoint.schemaChanges = endpoint.schemaChanges.map { change in
                var change = change
                change.path = mask(change.path)
                change.before = change.before.map(mask)
                change.after = change.after.map(mask)
                change.file = change.file.map(mask)
                return change
            }
            return endpoint
        }
        result.regressions = regressions.map { regression in
            var regression = regression
            regression.endpoint = mask(regression.endpoint)
            return regression
        }
        return result
    }
}

/// An endpoint's phase timings over its answered samples: statistics per phase, and how many samples reused
/// a connection.
package struct PhaseStats: Sendable, Hashable {
    /// Statistics per phase name (``PhaseTimings/names``), in milliseconds.
    package var phases: [String: LatencyStats]
    /// Samples that opened no new connection (their dns, connect and tls are zero).
    package var reusedConnections: Int
    /// Samples with phase timings.
    package var count: Int

    /// `nil` when no sample has phase timings.
    package init?(_ timings: [PhaseTimings]) {
        guard !timings.isEmpty else { return nil }
        var phases: [String: LatencyStats] = [:]
        for name in PhaseTimings.names {
            phases[name] = LatencyStats(durations: timings.map { $0.named.first { $0.name == name }!.duration })
        }
        self.phases = phases
        self.reusedConnections = timings.count(where: \.connectionReused)
        self.count = timings.count
    }
}

extension SchemaChange {
    /// A change as one line, with the fixture it was seen in: `breaking search.json: /recipes/*/rank type-changed:
    /// number → string`. What the history keeps and the reports print.
    package var lineWithFile: String {
        "\(severity) \(file.map { "\($0): " } ?? "")\(summary)"
    }
}
