package import Foundation
import ProbeClient

/// The Grafana dashboard the repository ships (`deploy/grafana/apiprobe.json`): its panels' PromQL, with the
/// dashboard's variables given values, as Grafana would send the queries.
package struct GrafanaDashboard {
    package static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/grafana/apiprobe.json")

    package struct Panel {
        package var title: String
        package var expressions: [String]
    }

    package var panels: [Panel]

    package init() throws {
        struct File: Decodable {
            struct Panel: Decodable {
                struct Target: Decodable { var expr: String }
                var title: String
                var targets: [Target]
            }
            var panels: [Panel]
        }
        panels = try JSONDecoder().decode(File.self, from: Data(contentsOf: Self.file)).panels.map {
            Panel(title: $0.title, expressions: $0.targets.map(\.expr))
        }
    }

    /// `expression` with the variables `$api` and `$instance` set (regular expressions, as Grafana's `All` sends
    /// them) and `$__rate_interval` as Grafana works it out for a one-second scrape.
    package static func resolve(_ expression: String, api: String = ".*", instance: String = ".*") -> String {
        expression.replacingOccurrences(of: "$__rate_interval", with: "1m")
            .replacingOccurrences(of: "$api", with: api)
            .replacingOccurrences(of: "$instance", with: instance)
    }

    /// The apiprobe metrics an expression names.
    package static func metrics(in expression: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: "apiprobe_[a-z_]+")  // a literal that compiles
        let range = NSRange(expression.startIndex..., in: expression)
        return Set(
            pattern.matches(in: expression, range: range).compactMap {
                Range($0.range, in: expression).map { String(expression[$0]) }
            })
    }
}
