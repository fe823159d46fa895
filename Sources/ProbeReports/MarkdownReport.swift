import APIProbeShared
import Foundation
import JSONShape
import ProbeClient
import ProbeRunner

/// `--report markdown`: for a pull request comment or a GitHub Actions step summary.
///
/// ```markdown
/// ## ❌ apiprobe: 1 of 2 endpoints failed
///
/// | | endpoint | samples | status | p50 | p95 | p99 | checks |
/// |:-:|---|--:|---|--:|--:|--:|---|
/// | ✅ | search | 5 | 200×5 | 12.0 ms | 15.0 ms | 15.8 ms | 3/3 |
/// | ❌ | detail | 5 | 200×3 503×2 | 12.0 ms | 15.0 ms | 15.8 ms | 2/3 |
///
/// ### Failures
///
/// - **detail**: status 200-299 (http-status): 2 of 5 samples answered 503
/// ```
///
/// Text from the config or the server is escaped: `|` cannot end a cell, and Markdown and HTML characters
/// show as themselves.
enum MarkdownReport {
    static func render(_ result: ProbeRunResult) -> String {
        var lines: [String] = [heading(result), ""]
        lines.append(
            "Started \(DisplayText.timestamp(result.startedAt)), took \(DisplayText.seconds(result.duration)), "
                + "config \(escape(result.configFile))."
        )
        if result.hitDeadline {
            lines += ["", "> **Deadline reached:** the run ended before every endpoint finished."]
        }
        if !result.endpoints.isEmpty {
            lines += [
                "", "| | endpoint | samples | status | p50 | p95 | p99 | checks |", "|:-:|---|--:|---|--:|--:|--:|---|",
            ]
            for endpoint in result.endpoints {
                let latency = endpoint.latency
                let cells = [
                    result.passed(endpoint) ? "✅" : "❌",
                    escape(endpoint.name) + (endpoint.isDown ? " **(down)**" : ""),
                    String(endpoint.samples.count),
                    ReportText.answers(endpoint),
                    milliseconds(latency?.p50), milliseconds(latency?.p95), milliseconds(latency?.p99),
                    "\(endpoint.checks.count(where: \.passed))/\(endpoint.checks.count)",
                ]
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
        }
        let failures = result.endpoints.flatMap { endpoint in
            endpoint.checks.filter { !$0.passed }.map { check in
                var line = "- **\(escape(endpoint.name))**: \(escape(check.name))"
                if let category = check.category { line += " (\(escape(category.rawValue)))" }
                if let message = check.message, !message.isEmpty { line += ": \(escape(message))" }
                return line
            }
        }
        if !failures.isEmpty { lines += ["", "### Failures", ""] + failures }
        let drift = result.endpoints.flatMap { endpoint in
            endpoint.schemaChanges.map { change in
                let file = change.file.map { "\(escape($0)): " } ?? ""
                return "- **\(escape(endpoint.name))**: \(severityMark(change.severity)) \(change.severity) "
                    + "\(file)\(escape(change.summary))"
            }
        }
        if !drift.isEmpty { lines += ["", "### Schema drift", ""] + drift }
        let secured = result.endpoints.filter { $0.tls != nil }
        if !secured.isEmpty {
            lines += ["", "### TLS", "", "| endpoint | certificate | expires | verified |", "|---|---|---|---|"]
            for endpoint in secured {
                guard let tls = endpoint.tls else { continue }
                let days = DisplayText.decimal(tls.daysUntilExpiry(from: result.startedAt))
                let verified =
                    tls.insecure
                    ? "⚠️ no (insecure: true)"
                    : tls.verified ? "✅ yes" : "❌ no (\(escape(tls.failure?.rawValue ?? "handshake")))"
                lines.append(
                    "| \(escape(endpoint.name)) | \(escape(tls.expiringSubject)) | \(DisplayText.timestamp(tls.notAfter)) (\(days) days) "
                        + "| \(verified) |")
            }
        }
        let timed = result.endpoints.filter { $0.phases != nil }
        if !timed.isEmpty {
            lines += [
                "", "### Phases (p50)", "",
                "| endpoint | dns | connect | tls | processing | transfer | reused connections |",
                "|---|--:|--:|--:|--:|--:|--:|",
            ]
            for endpoint in timed {
                guard let phases = endpoint.phases else { continue }
                let cells = PhaseTimings.names.map { milliseconds(phases.phases[$0]?.p50) }
                lines.append(
                    "| \(escape(endpoint.name)) | " + cells.joined(separator: " | ")
                        + " | \(phases.reusedConnections) of \(phases.count) |")
            }
        }
        let redirected = result.endpoints.compactMap { endpoint in
            endpoint.samples.first { !$0.redirects.isEmpty }.map { (endpoint.name, $0.redirects) }
        }
        if !redirected.isEmpty {
            lines += ["", "### Redirects", ""]
            lines += redirected.map { name, chain in
                "- **\(escape(name))**: " + chain.map(escape).joined(separator: " → ")
            }
        }
        if !result.regressions.isEmpty {
            lines += ["", "### Regressions", ""]
            lines += result.regressions.map { "- **\(escape($0.endpoint))**: \(ReportText.describe($0))" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func heading(_ result: ProbeRunResult) -> String {
        let total = result.endpoints.count
        let failed = result.endpoints.count { !$0.passed }
        guard !result.passed else {
            return "## ✅ apiprobe: \(total == 1 ? "1 endpoint" : "all \(total) endpoints") passed"
        }
        var parts: [String] = []
        if failed > 0 { parts.append("\(failed) of \(DisplayText.count(total, "endpoint")) failed") }
        if !result.regressions.isEmpty {
            parts.append("\(DisplayText.count(result.regressions.count, "latency regression")) found")
        }
        if parts.isEmpty { parts.append("the run did not finish") }
        return "## ❌ apiprobe: " + parts.joined(separator: ", ")
    }

    private static func severityMark(_ severity: ChangeSeverity) -> String {
        switch severity {
        case .breaking: return "🔴"
        case .warning: return "🟡"
        default: return "⚪"
        }
    }

    private static func milliseconds(_ value: Double?) -> String {
        value.map { DisplayText.decimal($0) + " ms" } ?? "-"
    }

    /// Text shown as itself in a table cell or a list item: Markdown and HTML punctuation backslash-escaped
    /// (`\|` keeps a cell whole), `&` as an entity, line breaks and other control characters as spaces.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\", "`", "*", "_", "[", "]", "<", ">", "|", "~", "#", "!":
                out += "\\"
                out.unicodeScalars.append(scalar)
            case "&": out += "&amp;"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += " "
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
