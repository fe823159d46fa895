import APIProbeShared
package import ConsumerContracts
import Foundation
import HTTPFixtures

/// `contract verify`'s reports: for people (the console), for machines (JSON) and for CI (JUnit XML), from the
/// same verdicts. Each names the consumer, its version, the interaction and the member that would break.
package enum ContractReport {
    package enum Format: String, CaseIterable, Sendable {
        case text, json, junit
    }

    package static func render(_ verdicts: [ContractVerdict], as format: Format, against target: String) -> String {
        switch format {
        case .text: text(verdicts, against: target)
        case .json:
            String(decoding: json(verdicts, against: target).serialized(pretty: true, sortedKeys: true), as: UTF8.self)
                + "\n"
        case .junit: junit(verdicts, against: target)
        }
    }

    /// One line per interaction that broke, with its breaks below; a verdict line per consumer version.
    static func text(_ verdicts: [ContractVerdict], against target: String) -> String {
        var lines: [String] = []
        for verdict in verdicts {
            let failed = verdict.interactions.filter { !$0.passed }
            let word = failed.isEmpty ? "can deploy" : "would break"
            lines.append(
                "\(verdict.consumer) \(verdict.consumerVersion) (\(verdict.file)): \(word): "
                    + "\(verdict.interactions.count - failed.count) of \(verdict.interactions.count) interactions pass")
            for interaction in failed {
                lines.append("  ✗ \(interaction.name)")
                for item in interaction.breaks { lines.append("      \(item)") }
            }
        }
        let broken = verdicts.filter { !$0.passed }.count
        let interactions = verdicts.reduce(0) { $0 + $1.interactions.count }
        let failed = verdicts.reduce(0) { $0 + $1.interactions.filter { !$0.passed }.count }
        lines.append(
            "\(target): \(verdicts.count - broken) of \(verdicts.count) consumer versions pass; "
                + "\(interactions - failed) of \(interactions) interactions pass")
        return lines.joined(separator: "\n") + "\n"
    }

    static func json(_ verdicts: [ContractVerdict], against target: String) -> JSONValue {
        .object([
            (
                "contracts",
                .array(
                    verdicts.map { verdict in
                        .object([
                            ("consumer", .string(verdict.consumer)),
                            ("consumerVersion", .string(verdict.consumerVersion)),
                            ("file", .string(verdict.file)),
                            (
                                "interactions",
                                .array(
                                    verdict.interactions.map { interaction in
                                        .object([
                                            (
                                                "breaks",
                                                .array(
                                                    interaction.breaks.map { item in
                                                        var members: [(key: String, value: JSONValue)] = [
                                                            ("message", .string(item.message))
                                                        ]
                                                        if let member = item.member {
                                                            members.append(("member", .string(member)))
                                                        }
                                                        return .object(members)
                                                    })
                                            ),
                                            ("name", .string(interaction.name)),
                                            ("passed", .bool(interaction.passed)),
                                        ])
                                    })
                            ),
                            ("passed", .bool(verdict.passed)),
                            ("provider", .string(verdict.provider)),
                        ])
                    })
            ),
            ("passed", .bool(verdicts.allSatisfy(\.passed))),
            ("target", .string(target)),
        ])
    }

    /// A test suite per consumer version, a test case per interaction, a failure per broken one.
    static func junit(_ verdicts: [ContractVerdict], against target: String) -> String {
        let tests = verdicts.reduce(0) { $0 + $1.interactions.count }
        let failures = verdicts.reduce(0) { $0 + $1.interactions.filter { !$0.passed }.count }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml +=
            "<testsuites name=\"\(JUnitReport.escape("apiprobe contract verify \(target)"))\" tests=\"\(tests)\" failures=\"\(failures)\">\n"
        for verdict in verdicts {
            let suite = "\(verdict.consumer) \(verdict.consumerVersion)"
            let failed = verdict.interactions.filter { !$0.passed }.count
            xml +=
                "  <testsuite name=\"\(JUnitReport.escape(suite))\" tests=\"\(verdict.interactions.count)\" failures=\"\(failed)\">\n"
            for interaction in verdict.interactions {
                let seconds = DisplayText.decimal(
                    Double(interaction.duration.components.seconds) + Double(
                        interaction.duration.components.attoseconds) / 1e18, places: 3)
                xml +=
                    "    <testcase classname=\"\(JUnitReport.escape(suite))\" name=\"\(JUnitReport.escape(interaction.name))\" time=\"\(seconds)\""
                if interaction.passed {
                    xml += "/>\n"
                } else {
                    let message = interaction.breaks.map(\.description)
                    xml += ">\n      <failure message=\"\(JUnitReport.escape(message.first ?? ""))\">"
                    xml += JUnitReport.escape(message.joined(separator: "\n"), attribute: false)
                    xml += "</failure>\n    </testcase>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        xml += "</testsuites>\n"
        return xml
    }
}
