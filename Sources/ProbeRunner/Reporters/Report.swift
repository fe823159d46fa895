import Foundation
import HTTPFixtures

/// The report kinds of `apiprobe run --report KIND[=PATH]` (README, "Reports, history and Prometheus").
public struct ReportKind: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    public var rawValue: String
    public init?(rawValue: String) {
        guard Self.allCases.map(\.rawValue).contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }
    private init(_ rawValue: String) { self.rawValue = rawValue }

    public static let console = ReportKind("console")
    public static let json = ReportKind("json")
    public static let junit = ReportKind("junit")
    public static let markdown = ReportKind("markdown")
    public static let prometheus = ReportKind("prometheus")
    public static let allCases: [ReportKind] = [.console, .json, .junit, .markdown, .prometheus]

    public var description: String { rawValue }
}

/// How a report is rendered.
public struct ReportOptions: Sendable, Hashable {
    /// ANSI colour (console only; callers decide from the terminal and `NO_COLOR`).
    public var usesColor: Bool
    /// The Prometheus `job` label and metric-name prefix context.
    public var job: String

    /// The counts of every round so far in this process (`--every`), for the Prometheus `…_total` counters: a
    /// counter that restarted each round would make `rate()` and `increase()` read zero. `nil`: this round's.
    public var totals: RunningTotals?

    public init(usesColor: Bool = false, job: String = "apiprobe", totals: RunningTotals? = nil) {
        self.usesColor = usesColor
        self.job = job
        self.totals = totals
    }
}

/// Responses, errors, retries and rate-limited samples per endpoint, summed over every run that shares a history
/// file (kept beside it: `history.totals.json`), or over the rounds of one process without one: the values of the
/// Prometheus counters, which must never go back when cron starts a new process.
public struct RunningTotals: Sendable, Hashable {
    public struct Endpoint: Sendable, Hashable {
        public var statusCodes: [Int: Int] = [:]
        public var errors = 0
        public var retries = 0
        public var rateLimited = 0
    }

    /// By endpoint name.
    public private(set) var endpoints: [String: Endpoint] = [:]

    public init() {}

    /// The totals file beside a history file: `history.jsonl` → `history.totals.json`.
    static func url(besideHistory history: URL) -> URL { StateFile.url("totals", besideHistory: history) }

    /// `{"endpoints": {"search": {"codes": {"200": 10}, "errors": 0, "rateLimited": 0, "retries": 1}}, "version": 1}`.
    func encoded() -> Data {
        let members: [(key: String, value: JSONValue)] = endpoints.keys.sorted().map { name in
            let totals = endpoints[name] ?? Endpoint()
            let codes: [(key: String, value: JSONValue)] = totals.statusCodes.keys.sorted().map {
                (String($0), .number(String(totals.statusCodes[$0] ?? 0)))
            }
            return (
                name,
                .object([
                    ("codes", .object(codes)), ("errors", .number(String(totals.errors))),
                    ("rateLimited", .number(String(totals.rateLimited))), ("retries", .number(String(totals.retries))),
                ])
            )
        }
        return JSONValue.object([("endpoints", .object(members)), ("version", .number("1"))]).serialized()
            + Data("\n".utf8)
    }

    /// Reads what ``encoded()`` writes; `nil` for anything else.
    init?(decoding data: Data) {
        guard let document = try? JSONValue(parsing: data), case .object(let members)? = document["endpoints"]
        else { return nil }
        func count(_ value: JSONValue?) -> Int? {
            guard case .number(let literal)? = value, let number = Int(literal), number >= 0 else { return nil }
            return number
        }
        for (name, value) in members {
            guard case .object(let codes)? = value["codes"], let errors = count(value["errors"]),
                let retries = count(value["retries"]), let rateLimited = count(value["rateLimited"])
            else { return nil }
            var totals = Endpoint(errors: errors, retries: retries, rateLimited: rateLimited)
            for (code, number) in codes {
                guard let status = Int(code), let number = count(number) else { return nil }
                totals.statusCodes[status] = number
            }
            endpoints[name] = totals
        }
    }

    /// Adds a round's counts.
    public mutating func add(_ result: ProbeRunResult) {
        for endpoint in result.endpoints {
            var totals = endpoints[endpoint.name] ?? Endpoint()
            totals.statusCodes.merge(endpoint.statusCodes) { $0 + $1 }
            totals.errors += endpoint.errors
            totals.retries += endpoint.retries
            totals.rateLimited += endpoint.rateLimited
            endpoints[endpoint.name] = totals
        }
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
public enum Report {
    /// The text of one report, ending in a newline.
    ///
    /// - Parameters:
    ///   - result: the round to report.
    ///   - kind: `console` (a table for a person), `json` (a stable format), `junit` (JUnit XML),
    ///     `markdown` (for a pull request or a GitHub step summary), `prometheus` (text exposition 0.0.4).
    ///   - options: colour for the console report.
    public static func render(_ result: ProbeRunResult, as kind: ReportKind, options: ReportOptions = ReportOptions())
        -> String
    {
        switch kind {
        case .json: return JSONReport.render(result)
        case .junit: return JUnitReport.render(result)
        case .markdown: return MarkdownReport.render(result)
        case .prometheus: return PrometheusReport.render(result, options: options)
        default: return ConsoleReport.render(result, options: options)
        }
    }
}
