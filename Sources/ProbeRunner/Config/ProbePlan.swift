import APIProbeShared
import Foundation
package import HTTPFixtures
import ProbeClient

extension ProbeConfig {
    /// What `apiprobe run` would do with this config, for `apiprobe run --dry-run`: every endpoint with its
    /// request, samples, timing and checks, the alert receivers, and the run's limits; nothing is sent. Every
    /// value passes `redactor` (a `${TOKEN}` resolved from the environment is masked), and a receiver is shown by
    /// its kind and host only (a webhook's URL may be a credential).
    ///
    /// ```
    /// apiprobe.yml: 2 endpoints, concurrency 4, deadline 60s, down after 2 failed rounds
    ///   search  GET http://127.0.0.1:8080/api/search?q=chicken
    ///           5 samples, timeout 5s, every round; status 200, 3 body conditions, schema Snapshots/recipes/search.schema.json
    /// alerts: webhook hooks.example.com
    /// ```
    package func plan(redactor: Redactor) -> String {
        var lines: [String] = []
        var head = "\(file): \(DisplayText.count(endpoints.count, "endpoint")), concurrency \(concurrency)"
        head += ", deadline \(formatDuration(deadline)), down after \(DisplayText.count(downAfter, "failed round"))"
        if let rate = requestsPerSecondPerHost { head += ", at most \(DisplayText.decimal(rate)) requests/s per host" }
        lines.append(head)
        let width = endpoints.map(\.name.count).max() ?? 0
        for endpoint in endpoints {
            let url = (try? endpoint.url(baseURL: baseURL, file: file)).map {
                redactor.redactURL($0.absoluteString)
            }
            let name = endpoint.name.padding(toLength: width, withPad: " ", startingAt: 0)
            lines.append("  \(name)  \(endpoint.method) \(url ?? endpoint.path)")
            var how = "\(DisplayText.count(endpoint.samples, "sample")), timeout \(formatDuration(endpoint.timeout))"
            if endpoint.retries > 0 { how += ", \(DisplayText.count(endpoint.retries, "retry", plural: "retries"))" }
            how += endpoint.interval.map { ", every \(formatDuration($0))" } ?? ", every round"
            if !endpoint.maintenance.isEmpty {
                how += ", maintenance " + endpoint.maintenance.map(\.description).joined(separator: "; ")
            }
            var checks: [String] = []
            switch endpoint.kind {
            case .http: checks.append("status \(endpoint.expectations.status)")
            case .tcp, .tls: checks.append("connects")
            case .dns:
                checks.append("asks \(endpoint.dns.map(\.description) ?? "")")
                checks.append("rcode " + endpoint.expectations.rcodes.map(\.description).joined(separator: ", "))
                checks += endpoint.expectations.answers.map { "answer \($0)" }
            }
            if !endpoint.expectations.headers.isEmpty {
                checks.append(DisplayText.count(endpoint.expectations.headers.count, "header check"))
            }
            if !endpoint.expectations.body.isEmpty {
                checks.append(DisplayText.count(endpoint.expectations.body.count, "body condition"))
            }
            if let schema = endpoint.expectations.schema { checks.append("schema \(schema.snapshot)") }
            checks += endpoint.expectations.latency.map { "\($0)" }
            if let minimum = endpoint.tls.expiresInText { checks.append("tls expiresIn \(minimum)") }
            if endpoint.tls.insecure { checks.append("tls insecure") }
            if let ca = endpoint.tls.caFile { checks.append("tls caFile \(ca)") }
            let headers = endpoint.headers.keys.sorted()
            let sent = headers.isEmpty ? "" : "; sends \(headers.joined(separator: ", "))"
            lines.append(String(repeating: " ", count: width + 4) + how + "; " + checks.joined(separator: ", ") + sent)
        }
        if !maintenance.isEmpty {
            lines.append("maintenance (every endpoint): " + maintenance.map(\.description).joined(separator: "; "))
        }
        if alerts.isEmpty {
            lines.append("alerts: none")
        } else {
            lines.append("alerts: " + alerts.map { AlertOutbox.receiver($0) }.joined(separator: ", "))
        }
        return redactor.redact(text: lines.joined(separator: "\n")) + "\n"
    }
}
