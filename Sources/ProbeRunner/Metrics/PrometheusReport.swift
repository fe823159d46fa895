import APIProbeShared
import Foundation
import JSONShape
import ProbeClient

/// `--report prometheus`: Prometheus text exposition format 0.0.4, for a node-exporter textfile collector or
/// a Pushgateway (`--push-gateway URL`).
///
/// ```
/// # HELP apiprobe_up Whether the endpoint answers: 0 once downAfter rounds in a row got no response or a refused status.
/// # TYPE apiprobe_up gauge
/// apiprobe_up{endpoint="search"} 1
/// # HELP apiprobe_request_duration_seconds Request latency to the last byte of the body, over the run's samples.
/// # TYPE apiprobe_request_duration_seconds summary
/// apiprobe_request_duration_seconds{endpoint="search",quantile="0.5"} 0.012
/// apiprobe_request_duration_seconds_sum{endpoint="search"} 0.0635
/// apiprobe_request_duration_seconds_count{endpoint="search"} 5
/// ```
///
/// Each family has one `# HELP` and `# TYPE`; label values escape `\`, `"` and line feeds. The `job` label is
/// not written: a Pushgateway adds it from the push URL, and Prometheus from the scrape config. Counters
/// (`…_total`) count the samples of every run that shares the history file, kept beside it (or of every round of
/// the process without one: `totals`), so `rate()` and `increase()` work for cron runs that push
/// to a Pushgateway as under `--every`; gauges describe this run. Endpoint names that repeat get `#2`, `#3` so no series repeats.
package enum PrometheusReport {
    /// The exposition of a round; `totals`: the counts of every run sharing the history (or of every round of
    /// the process), for the `…_total` counters; `nil`: this round's.
    package static func render(_ result: ProbeRunResult, totals: RunningTotals? = nil) -> String {
        var writer = Writer()
        let endpoints = uniqueNames(result.endpoints)
        let regressed = Set(result.regressions.map(\.endpoint))

        writer.family(
            "apiprobe_up", .gauge,
            "Whether the endpoint answers: 0 once downAfter rounds in a row got no response or a refused status."
        )
        for (name, endpoint) in endpoints {
            writer.sample("apiprobe_up", ["endpoint": name], endpoint.isDown ? 0 : 1)
        }
        writer.family("apiprobe_endpoint_passed", .gauge, "Whether every check of the endpoint held in this run.")
        for (name, endpoint) in endpoints {
            writer.sample("apiprobe_endpoint_passed", ["endpoint": name], endpoint.passed ? 1 : 0)
        }
        writer.family(
            "apiprobe_consecutive_failures", .gauge, "Failed rounds in a row so far, this one included."
        )
        for (name, endpoint) in endpoints {
            writer.sample("apiprobe_consecutive_failures", ["endpoint": name], Double(endpoint.consecutiveFailures))
        }
        summary(
            &writer, "apiprobe_request_duration_seconds",
            "Request latency to the last byte of the body, over the run's samples.", endpoints, \.latency
        )
        let withFirstByte = endpoints.filter { $0.1.timeToFirstByte != nil }
        if !withFirstByte.isEmpty {
            summary(
                &writer, "apiprobe_time_to_first_byte_seconds", "Time to the response head, over the run's samples.",
                withFirstByte, \.timeToFirstByte
            )
        }
        phaseSummary(&writer, endpoints.filter { $1.phases != nil })
        let secured = endpoints.filter { $1.tls != nil }
        if !secured.isEmpty {
            // blackbox_exporter's probe_ssl_earliest_cert_expiry, per endpoint.
            writer.family(
                "apiprobe_tls_cert_expiry_timestamp_seconds", .gauge,
                "When the first certificate of the server's chain expires (the earliest notAfter, as blackbox_exporter's probe_ssl_earliest_cert_expiry), in seconds since the epoch."
            )
            for (name, endpoint) in secured {
                writer.sample(
                    "apiprobe_tls_cert_expiry_timestamp_seconds", ["endpoint": name],
                    (endpoint.tls?.notAfter.timeIntervalSince1970 ?? 0).rounded())
            }
            writer.family(
                "apiprobe_tls_verified", .gauge,
                "Whether the certificate chain led to a trusted root and named the host (0 with insecure: true).")
            for (name, endpoint) in secured {
                writer.sample("apiprobe_tls_verified", ["endpoint": name], endpoint.tls?.verified == true ? 1 : 0)
            }
            writer.family(
                "apiprobe_tls_insecure", .gauge, "Whether the endpoint is probed with insecure: true (not verified).")
            for (name, endpoint) in secured {
                writer.sample("apiprobe_tls_insecure", ["endpoint": name], endpoint.tls?.insecure == true ? 1 : 0)
            }
        }
        // Counters count every run sharing the history, or every round of the process (`totals`); this
        // run's alone when there are no totals.
        let counts = endpoints.map { name, endpoint in
            (
                name,
                totals?.endpoints[endpoint.name]
                    ?? RunningTotals.Endpoint(
                        statusCodes: endpoint.statusCodes, errors: endpoint.errors, retries: endpoint.retries,
                        rateLimited: endpoint.rateLimited)
            )
        }
        let scope = totals == nil ? "in this run" : "over every run"
        writer.family("apiprobe_responses_total", .counter, "Responses \(scope), by HTTP status code.")
        for (name, count) in counts {
            for (code, number) in count.statusCodes.sorted(by: { $0.key < $1.key }) {
                writer.sample("apiprobe_responses_total", ["endpoint": name, "code": String(code)], Double(number))
            }
        }
        writer.family(
            "apiprobe_errors_total", .counter,
            "Samples \(scope) that got no HTTP response (a connection, TLS or timeout failure); responses with a failing status are counted in apiprobe_responses_total by code."
        )
        for (name, count) in counts {
            writer.sample("apiprobe_errors_total", ["endpoint": name], Double(count.errors))
        }
        writer.family("apiprobe_retries_total", .counter, "Retries after transport errors \(scope).")
        for (name, count) in counts {
            writer.sample("apiprobe_retries_total", ["endpoint": name], Double(count.retries))
        }
        writer.family(
            "apiprobe_rate_limited_total", .counter, "Samples \(scope) answered 429, or 503 with Retry-After."
        )
        for (name, count) in counts {
            writer.sample("apiprobe_rate_limited_total", ["endpoint": name], Double(count.rateLimited))
        }
        writer.family("apiprobe_check_passed", .gauge, "Whether the check held in this run.")
        for (name, endpoint) in endpoints {
            // A check name that repeats within an endpoint is one series: it held only if every one held.
            var seen: [String: Bool] = [:]
            var order: [String] = []
            for check in endpoint.checks {
                if seen[check.name] == nil { order.append(check.name) }
                seen[check.name] = (seen[check.name] ?? true) && check.passed
            }
            for check in order {
                writer.sample("apiprobe_check_passed", ["endpoint": name, "check": check], seen[check] == true ? 1 : 0)
            }
        }
        writer.family(
            "apiprobe_schema_changes", .gauge, "Schema drift against the endpoint's snapshot, by severity."
        )
        for (name, endpoint) in endpoints {
            for severity in [ChangeSeverity.breaking, .warning, .info] {
                let count = endpoint.schemaChanges.count { $0.severity == severity }
                writer.sample(
                    "apiprobe_schema_changes", ["endpoint": name, "severity": severity.rawValue], Double(count))
            }
        }
        writer.family(
            "apiprobe_latency_regression", .gauge, "Whether this run's p95 regressed against the history's median."
        )
        for (name, endpoint) in endpoints {
            writer.sample("apiprobe_latency_regression", ["endpoint": name], regressed.contains(endpoint.name) ? 1 : 0)
        }
        writer.family("apiprobe_run_passed", .gauge, "Whether every endpoint passed and no regression was found.")
        writer.sample("apiprobe_run_passed", [:], result.passed ? 1 : 0)
        writer.family("apiprobe_run_deadline_reached", .gauge, "Whether the deadline ended the run early.")
        writer.sample("apiprobe_run_deadline_reached", [:], result.hitDeadline ? 1 : 0)
        writer.family("apiprobe_run_duration_seconds", .gauge, "Wall time of the whole run.")
        writer.sample("apiprobe_run_duration_seconds", [:], seconds(result.duration.milliseconds))
        writer.family(
            "apiprobe_last_run_timestamp_seconds", .gauge, "When the last run started, in seconds since the epoch."
        )
        writer.sample("apiprobe_last_run_timestamp_seconds", [:], result.startedAt.timeIntervalSince1970)
        return writer.text
    }

    private static func summary(
        _ writer: inout Writer, _ family: String, _ help: String, _ endpoints: [(String, EndpointResult)],
        _ stats: KeyPath<EndpointResult, LatencyStats?>
    ) {
        writer.family(family, .summary, help)
        for (name, endpoint) in endpoints {
            let values = endpoint[keyPath: stats]
            if let values {
                let quantiles = [("0.5", values.p50), ("0.9", values.p90), ("0.95", values.p95), ("0.99", values.p99)]
                for (quantile, milliseconds) in quantiles {
                    writer.sample(family, ["endpoint": name, "quantile": quantile], seconds(milliseconds))
                }
            }
            let count = values?.count ?? 0
            writer.sample(family + "_sum", ["endpoint": name], seconds((values?.mean ?? 0) * Double(count)))
            writer.sample(family + "_count", ["endpoint": name], Double(count))
        }
    }

    /// `apiprobe_request_phase_duration_seconds{phase}`: `apiprobe_request_duration_seconds` split as blackbox_exporter's
    /// `probe_http_duration_seconds{phase}` splits it (a family of its own, so summing the total's series never
    /// counts a phase twice); and how many samples reused a connection (their dns, connect and tls are zero).
    private static func phaseSummary(_ writer: inout Writer, _ endpoints: [(String, EndpointResult)]) {
        guard !endpoints.isEmpty else { return }
        let family = "apiprobe_request_phase_duration_seconds"
        writer.family(
            family, .summary,
            "Request latency by phase (dns, connect, tls, processing, transfer), over the run's answered samples.")
        for (name, endpoint) in endpoints {
            guard let phases = endpoint.phases else { continue }
            for phase in PhaseTimings.names {
                guard let values = phases.phases[phase] else { continue }
                let quantiles = [("0.5", values.p50), ("0.9", values.p90), ("0.95", values.p95), ("0.99", values.p99)]
                for (quantile, milliseconds) in quantiles {
                    writer.sample(
                        family, ["endpoint": name, "phase": phase, "quantile": quantile], seconds(milliseconds))
                }
                writer.sample(
                    family + "_sum", ["endpoint": name, "phase": phase], seconds(values.mean * Double(values.count)))
                writer.sample(family + "_count", ["endpoint": name, "phase": phase], Double(values.count))
            }
        }
        writer.family(
            "apiprobe_reused_connection_samples", .gauge,
            "Samples of this run sent on a kept-alive connection (their dns, connect and tls phases are zero).")
        for (name, endpoint) in endpoints {
            writer.sample(
                "apiprobe_reused_connection_samples", ["endpoint": name],
                Double(endpoint.phases?.reusedConnections ?? 0))
        }
    }

    /// Milliseconds as seconds, to the nanosecond (no binary noise such as `0.015960000000000002`).
    private static func seconds(_ milliseconds: Double) -> Double {
        (milliseconds * 1_000_000).rounded() / 1_000_000_000
    }

    /// Endpoints with a label value each: a name that repeats gets `#2`, `#3`.
    private static func uniqueNames(_ endpoints: [EndpointResult]) -> [(String, EndpointResult)] {
        var used: Set<String> = []
        return endpoints.map { endpoint in
            let name = UniqueName.first(endpoint.name, separator: "#") { used.contains($0) }
            used.insert(name)
            return (name, endpoint)
        }
    }

    enum MetricType: String {
        case gauge, counter, summary
    }

    /// Builds the exposition text line by line.
    struct Writer {
        var text = ""

        mutating func family(_ name: String, _ type: MetricType, _ help: String) {
            text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(type.rawValue)\n"
        }

        /// A sample line; labels are written in a fixed order (`endpoint` first, then by name).
        mutating func sample(_ name: String, _ labels: [String: String], _ value: Double) {
            text += name
            if !labels.isEmpty {
                let ordered = labels.sorted { lhs, rhs in
                    if lhs.key == "endpoint" || rhs.key == "endpoint" { return lhs.key == "endpoint" }
                    if lhs.key == "quantile" || rhs.key == "quantile" { return rhs.key == "quantile" }
                    return lhs.key < rhs.key
                }
                text += "{" + ordered.map { "\($0.key)=\"\(Self.escapeLabel($0.value))\"" }.joined(separator: ",") + "}"
            }
            text += " " + Self.format(value) + "\n"
        }

        /// A label value: `\` as `\\`, `"` as `\"`, a line feed as `\n`.
        static func escapeLabel(_ value: String) -> String {
            var out = ""
            for character in value.unicodeScalars {
                switch character {
                case "\\": out += "\\\\"
                case "\"": out += "\\\""
                case "\n": out += "\\n"
                default: out.unicodeScalars.append(character)
                }
            }
            return out
        }

        /// HELP text: `\` as `\\`, a line feed as `\n`.
        static func escapeHelp(_ value: String) -> String {
            value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
        }

        /// A sample value as Go's `ParseFloat` reads it: `1`, `0.0152`, `1.7e+09`, `NaN`, `+Inf`.
        static func format(_ value: Double) -> String {
            if value.isNaN { return "NaN" }
            if value.isInfinite { return value < 0 ? "-Inf" : "+Inf" }
            if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
            return String(value)
        }
    }
}
