import Foundation

/// The report kinds of `apiprobe run --report KIND[=PATH]` (DESIGN.md).
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

    public init(usesColor: Bool = false, job: String = "apiprobe") {
        self.usesColor = usesColor
        self.job = job
    }
}

/// Renders a round's result as one report kind.
public enum Report {
    public static func render(_ result: ProbeRunResult, as kind: ReportKind, options: ReportOptions = ReportOptions())
        -> String
    {
        // PLACEHOLDER: the reporters work replaces this.
        "\(kind): \(result.endpoints.count) endpoints, passed: \(result.passed)\n"
    }
}
