package import Foundation
import JSONShape
import ProbeClient
package import ProbeRunner

/// Probe results built by hand, as the runner would produce them, for the report and history tests.
package enum SampleRuns {
    /// 2026-11-22T18:00:00Z.
    package static let startedAt = Date(timeIntervalSince1970: 1_795_370_400)

    package static func samples(_ milliseconds: [Double], status: Int = 200) -> [Sample] {
        milliseconds.map { Sample(status: status, latency: .microseconds(Int64(($0 * 1_000).rounded())), bytes: 100) }
    }

    /// Passed: five 200s, two checks held.
    package static var search: EndpointResult {
        let latencies = [11.2, 12.0, 12.5, 15.0, 16.0]
        return EndpointResult(
            name: "search", method: "GET", url: "http://127.0.0.1:8080/api/search?q=pasta&key=REDACTED",
            samples: samples(latencies), latency: LatencyStats(milliseconds: latencies),
            checks: [
                CheckResult(name: "status 200-299", passed: true),
                CheckResult(name: "latency p95 < 300ms", passed: true, message: "p95 was 15.8 ms"),
            ]
        )
    }

    /// Failed: two of five samples answered 503 (rate limited), and the body drifted from its snapshot.
    package static var detail: EndpointResult {
        let ok = [20.0, 22.5, 25.0]
        let limited = [5.0, 6.0].map {
            Sample(status: 503, latency: .microseconds(Int64($0 * 1_000)), wasRateLimited: true)
        }
        return EndpointResult(
            name: "detail", method: "GET", url: "http://127.0.0.1:8080/api/get?rId=35382",
            samples: samples(ok) + limited, latency: LatencyStats(milliseconds: ok + [5.0, 6.0]),
            checks: [
                CheckResult(
                    name: "status 200-299", passed: false, message: "2 of 5 samples answered 503",
                    category: .httpStatus),
                CheckResult(
                    name: "schema Snapshots/recipes/get.schema.json", passed: false, message: "1 breaking change",
                    category: .schemaDrift),
            ],
            schemaChanges: [
                SchemaChange(
                    path: "/recipe/social_rank", kind: .typeChanged, severity: .breaking, before: "number",
                    after: "string"),
                SchemaChange(path: "/recipe/rating", kind: .added, severity: .info, before: nil, after: "integer"),
            ],
            consecutiveFailures: 1
        )
    }

    /// Failed and down: every sample refused after two retries.
    package static var offline: EndpointResult {
        let refused = ProbeFailure(category: .refused, message: "connection refused by 127.0.0.1:9")
        return EndpointResult(
            name: "offline", method: "POST", url: "http://127.0.0.1:9/api/ping",
            samples: (0..<3).map { _ in Sample(status: nil, latency: .milliseconds(1), retries: 2, failure: refused) },
            latency: nil,
            checks: [
                CheckResult(
                    name: "reachable", passed: false, message: "connection refused by 127.0.0.1:9", category: .refused)
            ],
            consecutiveFailures: 3, isDown: true
        )
    }

    /// Three endpoints, two failed, one latency regression.
    package static var mixed: ProbeRunResult {
        ProbeRunResult(
            startedAt: startedAt, duration: .milliseconds(1_234), configFile: "apiprobe.yml",
            endpoints: [search, detail, offline],
            regressions: [Regression(endpoint: "search", p95: 15.8, baselineMedian: 7.5, factor: 1.5, runs: 10)]
        )
    }

    /// One endpoint, everything held.
    package static var green: ProbeRunResult {
        ProbeRunResult(
            startedAt: startedAt, duration: .milliseconds(250), configFile: "apiprobe.yml", endpoints: [search])
    }

    /// One endpoint whose name, check and message hold every character a report must escape.
    package static func hostile(name: String, check: String, message: String) -> ProbeRunResult {
        let latencies = [10.0]
        let endpoint = EndpointResult(
            name: name, method: "GET", url: "http://127.0.0.1:8080/a?b=<c>&d=\"e\"",
            samples: samples(latencies), latency: LatencyStats(milliseconds: latencies),
            checks: [
                CheckResult(name: check, passed: false, message: message, category: .bodyCondition),
                CheckResult(name: check, passed: true),
            ]
        )
        return ProbeRunResult(
            startedAt: startedAt, duration: .milliseconds(10), configFile: "apiprobe.yml", endpoints: [endpoint])
    }
}
