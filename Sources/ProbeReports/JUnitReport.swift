import APIProbeShared
import Foundation
import ProbeClient
import ProbeRunner

/// `--report junit`: JUnit XML, as CI systems (GitHub test reporters, GitLab, Jenkins) read it.
///
/// ```xml
/// <testsuites name="apiprobe" tests="2" failures="1" errors="0" time="1.234">
///   <testsuite name="apiprobe" tests="2" failures="1" errors="0" skipped="0" time="1.234" timestamp="2026-11-22T18:00:00">
///     <testcase classname="search" name="status 200-299" time="0.060"/>
///     <testcase classname="search" name="latency p95 &lt; 10ms" time="0.060">
///       <failure message="p95 was 15.0 ms" type="latency-budget">p95 was 15.0 ms</failure>
///     </testcase>
/// ```
///
/// One test case per endpoint and check (an endpoint without checks gets one named `probe`), one per
/// regression (`p95 regression`), and an `<error>` case when the deadline cut the run short. An endpoint's
/// first case (`reachable`) carries the summed latency of its samples, the time spent probing it; its other
/// checks only judge those samples and take `0.000`, so the cases add up to the time spent on requests
/// rather than repeating it once a check.
enum JUnitReport {
    static func render(_ result: ProbeRunResult) -> String {
        var cases: [String] = []
        var failures = 0
        var errors = 0
        for endpoint in result.endpoints {
            let probing = seconds(endpoint.samples.reduce(0) { $0 + $1.latency.timeInterval })
            let checks = endpoint.checks.isEmpty ? [CheckResult(name: "probe", passed: true)] : endpoint.checks
            for (index, check) in checks.enumerated() {
                var open = "    <testcase classname=\"\(escape(endpoint.name))\" name=\"\(escape(check.name))\""
                open += " time=\"\(index == 0 ? probing : "0.000")\""
                guard !check.passed else {
                    cases.append(open + "/>")
                    continue
                }
                failures += 1
                let message = check.message ?? "failed"
                let type = check.category?.rawValue ?? "failure"
                var body = message
                if !endpoint.schemaChanges.isEmpty, check.category == .schemaDrift {
                    body += "\n" + endpoint.schemaChanges.map(\.lineWithFile).joined(separator: "\n")
                }
                cases.append(
                    open + ">\n      <failure message=\"\(escape(message))\" type=\"\(escape(type))\">"
                        + "\(escape(body, attribute: false))</failure>\n    </testcase>"
                )
            }
        }
        for regression in result.regressions {
            failures += 1
            let message = ReportText.describe(regression)
            cases.append(
                "    <testcase classname=\"\(escape(regression.endpoint))\" name=\"p95 regression\" time=\"0.000\">\n"
                    + "      <failure message=\"\(escape(message))\" type=\"regression\">"
                    + "\(escape(message, attribute: false))</failure>\n    </testcase>"
            )
        }
        if result.hitDeadline {
            errors += 1
            let message = "the run's deadline ended it before every endpoint finished"
            cases.append(
                "    <testcase classname=\"apiprobe\" name=\"deadline\" time=\"0.000\">\n"
                    + "      <error message=\"\(message)\" type=\"timeout\">\(message)</error>\n    </testcase>"
            )
        }
        let counts = "tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\""
        let time = seconds(result.duration.timeInterval)
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<testsuites name=\"apiprobe\" \(counts) time=\"\(time)\">",
            "  <testsuite name=\"apiprobe\" \(counts) skipped=\"0\" time=\"\(time)\" "
                + "timestamp=\"\(DisplayText.timestamp(result.startedAt, zone: false))\">",
            "    <properties>",
            "      <property name=\"config\" value=\"\(escape(result.configFile))\"/>",
            "      <property name=\"startedAt\" value=\"\(DisplayText.timestamp(result.startedAt))\"/>",
            "    </properties>",
        ]
        lines += cases
        lines += ["  </testsuite>", "</testsuites>"]
        return lines.joined(separator: "\n") + "\n"
    }

    private static func seconds(_ value: TimeInterval) -> String { DisplayText.decimal(value, places: 3) }

    /// XML 1.0 text: markup characters as entities; characters XML cannot carry at all (most C0 controls,
    /// U+FFFE, U+FFFF) as a visible `\u{1B}`; in attributes, tab, newline and carriage return as character
    /// references, so attribute normalisation keeps them (and carriage return everywhere, which line-end
    /// normalisation would turn into a newline).
    static func escape(_ text: String, attribute: Bool = true) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += attribute ? "&quot;" : "\""
            case "'": out += attribute ? "&apos;" : "'"
            case "\t", "\n", "\r":
                if attribute || scalar == "\r" {
                    out += "&#\(scalar.value);"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
