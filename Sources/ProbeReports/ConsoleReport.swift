import APIProbeShared
import Foundation
import JSONShape
import ProbeClient
import ProbeRunner

/// `--report console`: a table a person reads at a glance, then what failed and why.
///
/// ```
///    endpoint  samples  status       p50 ms  p95 ms  p99 ms  max ms  errors  retries  limited
/// ✓  search          5  200×5          12.0    15.0    15.8    16.0       0        0        0
/// ✗  detail          5  200×3 503×2    12.0    15.0    15.8    16.0       0        0        2
///      GET http://127.0.0.1:8080/api/get?rId=35382
///      ✗ status 200-299: 2 of 5 samples answered 503 [http-status]
///
/// 2 endpoints: 1 passed, 1 failed in 1.23 s
/// ```
///
/// Colour (ANSI) only when asked; column widths count what a terminal shows, not the escape codes. Text that
/// came from the server (check messages) is shown with control characters escaped, so it cannot move the
/// cursor or change colours.
enum ConsoleReport {
    static func render(_ result: ProbeRunResult, options: ReportOptions) -> String {
        let style = Style(enabled: options.usesColor)
        var lines: [String] = []
        if !result.endpoints.isEmpty {
            var rows: [[Cell]] = [header(style)]
            var details: [Int: [String]] = [:]
            for endpoint in result.endpoints {
                details[rows.count] = detailLines(
                    endpoint, style: style, now: result.startedAt,
                    slow: result.regressions.contains { $0.endpoint == endpoint.name })
                rows.append(row(endpoint, passed: result.passed(endpoint), style: style))
            }
            let table = Table(rows: rows, rightAligned: [2, 4, 5, 6, 7, 8, 9, 10])
            for (index, line) in table.lines().enumerated() {
                lines.append(line)
                lines += details[index] ?? []
            }
        }
        if !result.regressions.isEmpty {
            lines.append("")
            lines.append(style.bold("Regressions:"))
            for regression in result.regressions {
                lines.append("  \(style.red("✗")) \(clean(regression.endpoint)): \(ReportText.describe(regression))")
            }
        }
        if result.hitDeadline {
            lines.append("")
            lines.append(style.yellow("The deadline ended the run before every endpoint finished."))
        }
        lines.append("")
        lines.append(summary(result, style: style))
        return lines.joined(separator: "\n") + "\n"
    }

    /// `3 endpoints: 2 passed, 1 failed in 1.23 s`.
    static func summary(_ result: ProbeRunResult, style: Style) -> String {
        let passed = result.endpoints.count(where: result.passed)
        let failed = result.endpoints.count - passed
        var text = "\(DisplayText.count(result.endpoints.count, "endpoint")): \(passed) passed, \(failed) failed"
        if !result.regressions.isEmpty { text += ", \(DisplayText.count(result.regressions.count, "regression"))" }
        if !result.inMaintenance.isEmpty { text += ", \(result.inMaintenance.count) in maintenance (not probed)" }
        text += " in \(DisplayText.seconds(result.duration))"
        return result.passed ? style.green(text) : style.red(text)
    }

    private static func header(_ style: Style) -> [Cell] {
        ["", "endpoint", "samples", "status", "p50 ms", "p95 ms", "p99 ms", "max ms", "errors", "retries", "limited"]
            .map { Cell(style.dim($0), width: $0.count) }
    }

    private static func row(_ endpoint: EndpointResult, passed: Bool, style: Style) -> [Cell] {
        let mark = passed ? style.green("✓") : style.red("✗")
        let latency = endpoint.latency
        let values = [latency?.p50, latency?.p95, latency?.p99, latency?.max].map { value in
            value.map { DisplayText.decimal($0) } ?? "-"
        }
        let plain =
            [
                clean(endpoint.name), String(endpoint.samples.count), ReportText.answers(endpoint),
            ] + values + [String(endpoint.errors), String(endpoint.retries), String(endpoint.rateLimited)]
        return [Cell(mark, width: 1)] + plain.map { Cell($0, width: visibleWidth($0)) }
    }

    /// The URL, failed checks, schema changes; the TLS state when it is not plain (insecure, failed, or an expiry
    /// budget); the phases of a slow endpoint (a latency budget failed, or a regression); a redirect chain.
    private static func detailLines(_ endpoint: EndpointResult, style: Style, now: Date, slow: Bool) -> [String] {
        let indent = "     "
        var lines: [String] = []
        let failedChecks = endpoint.checks.filter { !$0.passed }
        let isSlow = slow || failedChecks.contains { $0.category == .latencyBudget }
        if !endpoint.passed || !endpoint.schemaChanges.isEmpty {
            lines.append(indent + style.dim("\(clean(endpoint.method)) \(clean(endpoint.url))"))
        }
        if let tls = endpoint.tls, tls.insecure || !tls.verified || !endpoint.passed {
            let text = "TLS " + clean(ReportText.tlsSummary(tls, at: now))
            lines.append(indent + (tls.insecure || !tls.verified ? style.yellow(text) : style.dim(text)))
        }
        if isSlow, let phases = endpoint.phases {
            lines.append(indent + style.dim("phases " + ReportText.phaseBreakdown(phases)))
        }
        if let chain = endpoint.samples.first(where: { !$0.redirects.isEmpty })?.redirects {
            lines.append(indent + style.dim("redirected " + chain.map(clean).joined(separator: " → ")))
        }
        for check in failedChecks {
            var line = "\(style.red("✗")) \(clean(check.name))"
            if let message = check.message, !message.isEmpty { line += ": \(clean(message))" }
            if let category = check.category { line += " " + style.dim("[\(category)]") }
            lines.append(indent + line)
        }
        for change in endpoint.schemaChanges {
            let severity: String
            switch change.severity {
            case .breaking: severity = style.red(change.severity.rawValue)
            case .warning: severity = style.yellow(change.severity.rawValue)
            default: severity = style.dim(change.severity.rawValue)
            }
            let file = change.file.map { "\(clean($0)): " } ?? ""
            lines.append(indent + "  \(severity) \(file)\(clean(change.summary))")
        }
        if endpoint.isDown {
            lines.append(
                indent + style.red("down: \(DisplayText.count(endpoint.consecutiveFailures, "failed round")) in a row")
            )
        }
        return lines
    }

    /// `text` with control characters (ESC, newlines, tabs) written as `\u{1B}`, so it stays on one line and
    /// cannot drive the terminal.
    static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// How many columns `text` takes on a terminal: characters, not counting ANSI escape sequences.
    static func visibleWidth(_ text: String) -> Int {
        var width = 0
        var inEscape = false
        var sawBracket = false
        for scalar in text.unicodeScalars {
            if inEscape {
                if !sawBracket {
                    sawBracket = true
                    if scalar != "[" { inEscape = false }
                } else if (0x40...0x7E).contains(scalar.value) {
                    inEscape = false
                }
                continue
            }
            if scalar == "\u{1B}" {
                inEscape = true
                sawBracket = false
                continue
            }
            // Combining marks and zero-width joiners take no column of their own.
            if scalar.properties.generalCategory == .nonspacingMark || scalar.value == 0x200D
                || (0xFE00...0xFE0F).contains(scalar.value)
            {
                continue
            }
            width += 1
        }
        return width
    }

    struct Cell {
        var text: String
        var width: Int
        init(_ text: String, width: Int) {
            self.text = text
            self.width = width
        }
    }

    /// Columns separated by two spaces; numbers right-aligned; no trailing spaces.
    struct Table {
        var rows: [[Cell]]
        var rightAligned: Set<Int>

        func lines() -> [String] {
            let columns = rows.map(\.count).max() ?? 0
            var widths = [Int](repeating: 0, count: columns)
            for row in rows {
                for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.width) }
            }
            return rows.map { row in
                var line = ""
                for (index, cell) in row.enumerated() {
                    if index > 0 { line += "  " }
                    let padding = String(repeating: " ", count: widths[index] - cell.width)
                    line += rightAligned.contains(index) ? padding + cell.text : cell.text + padding
                }
                while line.hasSuffix(" ") { line.removeLast() }
                return line
            }
        }
    }

    /// ANSI styles, or none.
    struct Style {
        var enabled: Bool
        func green(_ text: String) -> String { wrap(text, "32") }
        func red(_ text: String) -> String { wrap(text, "31") }
        func yellow(_ text: String) -> String { wrap(text, "33") }
        func dim(_ text: String) -> String { wrap(text, "2") }
        func bold(_ text: String) -> String { wrap(text, "1") }
        private func wrap(_ text: String, _ code: String) -> String {
            enabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
        }
    }
}
