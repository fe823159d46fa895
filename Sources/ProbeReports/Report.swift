import Foundation
import HTTPFixtures
package import ProbeRunner

/// The report kinds of `apiprobe run --report KIND[=PATH]` (README, "Reports, history and Prometheus").
package struct ReportKind: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    package var rawValue: String
    package init?(rawValue: String) {
        guard Self.allCases.map(\.rawValue).contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }
    private init(_ rawValue: String) { self.rawValue = rawValue }

    package static let console = ReportKind("console")
    package static let json = ReportKind("json")
    package static let junit = ReportKind("junit")
    package static let markdown = ReportKind("markdown")
    package static let prometheus = ReportKind("prometheus")
    package static let allCases: [ReportKind] = [.console, .json, .junit, .markdown, .prometheus]

    package var description: String { rawValue }
}

/// Where one `--report KIND[=PATH]` goes: a file, or standard output when `path` is `nil`.
package struct ReportDestination: Sendable, Hashable, CustomStringConvertible {
    package var kind: ReportKind
    package var path: String?

    package init(kind: ReportKind, path: String? = nil) {
        self.kind = kind
        self.path = path
    }

    /// `json`, `json=out/report.json`; `json=-` is standard output, as `json` is; `nil` for an unknown kind or
    /// an empty path.
    package init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard let kind = ReportKind(rawValue: String(parts[0]).lowercased()) else { return nil }
        if parts.count == 2, parts[1] == "-" {
            self.init(kind: kind)
        } else if parts.count == 2 {
            guard !parts[1].isEmpty else { return nil }
            self.init(kind: kind, path: String(parts[1]))
        } else {
            self.init(kind: kind)
        }
    }

    package var description: String { path.map { "\(kind)=\($0)" } ?? kind.rawValue }
}

/// How a report is rendered.
package struct ReportOptions: Sendable, Hashable {
    /// ANSI colour (console only; callers decide from the terminal and `NO_COLOR`).
    var usesColor: Bool
    /// The counts of every round so far in this process (`--every`), for the Prometheus `…_total` counters: a
    /// counter that restarted each round would make `rate()` and `increase()` read zero. `nil`: this round's.
    var totals: RunningTotals?

    package init(usesColor: Bool = false, totals: RunningTotals? = nil) {
        self.usesColor = usesColor
        self.totals = totals
    }
}

/// Renders a round's result as one report kind.
///
/// Every report is a pure function of the result and the options, so the same result always gives the
/// same text (tests compare it, and a re-run with nothing changed gives a byte-identical file).
///
/// ```swift
/// print(Report.render(result, as: .console, options: ReportOptions(usesColor: true)), terminator: "")
/// try Data(Report.render(result, as: .json).utf8).write(to: reportURL)
/// ```
///
/// The reports show each endpoint's URL as the result holds it (the runner redacts credentials in the
/// query) and never any request header.
package enum Report {
    /// The text of one report, ending in a newline.
    ///
    /// - Parameters:
    ///   - result: the round to report.
    ///   - kind: `console` (a table for a person), `json` (a stable format), `junit` (JUnit XML),
    ///     `markdown` (for a pull request or a GitHub step summary), `prometheus` (text exposition 0.0.4).
    ///   - options: colour for the console report.
    package static func render(_ result: ProbeRunResult, as kind: ReportKind, options: ReportOptions = ReportOptions())
        -> String
    {
        switch kind {
        case .json: return JSONReport.render(result)
        case .junit: return JUnitReport.render(result)
        case .markdown: return MarkdownReport.render(result)
        case .prometheus: return PrometheusReport.render(result, totals: options.totals)
        default: return ConsoleReport.render(result, options: options)
        }
    }
}
