import Foundation
import HTTPFixtures
import JSONShape
import ProbeReports
import ProbeRunner
import ProbeTestSupport
import Testing

@Suite struct ReportJSONTests {
    /// The endpoint of the JSON report's documented example (JSONReport.swift), rebuilt from samples.
    static var designExample: ProbeRunResult {
        let endpoint = EndpointResult(
            name: "search", method: "GET", url: "https://api.example.com/search",
            samples: SampleRuns.samples([11.2, 11.9, 12.0, 14.1, 16.0]),
            latency: LatencyStats(milliseconds: [11.2, 11.9, 12.0, 14.1, 16.0]),
            checks: [CheckResult(name: "latency p95 < 10ms", passed: false, message: "p95 was 15.0 ms")]
        )
        return ProbeRunResult(
            startedAt: SampleRuns.startedAt, duration: .seconds(1), configFile: "apiprobe.yml", endpoints: [endpoint])
    }

    @Test func stableFieldsMatchTheDesignFormat() throws {
        let text = Report.render(Self.designExample, as: .json)
        let document = try JSONValue(parsing: Data(text.utf8))
        #expect(document["passed"] == .bool(false))
        #expect(document["startedAt"] == .string("2026-11-22T18:00:00Z"))
        let endpoint = try #require(document.value(at: "/endpoints/0"))
        #expect(endpoint["name"] == .string("search"))
        #expect(endpoint["passed"] == .bool(false))
        #expect(endpoint["samples"] == .number("5"))
        #expect(endpoint["errors"] == .number("0"))
        #expect(endpoint["statusCodes"] == .object([("200", .number("5"))]))
        // min 11.2, p50 12.0, p90 rank 3.6 → 14.1 + 0.6 × 1.9 = 15.24, p95 15.62, p99 15.924, mean 13.04
        #expect(
            endpoint["latencyMs"]
                == .object([
                    ("max", .number("16.0")), ("mean", .number("13.0")), ("min", .number("11.2")),
                    ("p50", .number("12.0")), ("p90", .number("15.2")), ("p95", .number("15.6")),
                    ("p99", .number("15.9")),
                ])
        )
        let check = try #require(endpoint.value(at: "/checks/0"))
        #expect(check["name"] == .string("latency p95 < 10ms"))
        #expect(check["passed"] == .bool(false))
        #expect(check["message"] == .string("p95 was 15.0 ms"))
    }

    @Test func keysAreSortedWithTwoSpaceIndentAndATrailingNewline() throws {
        let text = Report.render(SampleRuns.mixed, as: .json)
        let document = try JSONValue(parsing: Data(text.utf8))
        let canonical = String(decoding: document.serialized(pretty: true, sortedKeys: true), as: UTF8.self) + "\n"
        #expect(text == canonical)
        #expect(text.hasPrefix("{\n  \"configFile\": \"apiprobe.yml\",\n  \"durationMs\": 1234.0,\n"))
        #expect(Report.render(SampleRuns.mixed, as: .json) == text)
    }

    @Test func millisecondsAreRoundedToATenthAndWrittenWithOneDecimal() throws {
        let result = ProbeRunResult(
            startedAt: SampleRuns.startedAt, duration: .microseconds(1_234_567), configFile: "apiprobe.yml",
            endpoints: [
                EndpointResult(
                    name: "a", method: "GET", url: "http://127.0.0.1/", samples: SampleRuns.samples([7.0, 7.26]),
                    latency: LatencyStats(milliseconds: [7.0, 7.26]), checks: [])
            ])
        let text = Report.render(result, as: .json)
        #expect(text.contains("\"durationMs\": 1234.6,"))
        #expect(text.contains("\"max\": 7.3,"))
        #expect(text.contains("\"min\": 7.0,"))
        #expect(text.contains("\"mean\": 7.1,"))
    }

    @Test func additiveFieldsDescribeFailuresDriftAndRegressions() throws {
        let document = try JSONValue(parsing: Data(Report.render(SampleRuns.mixed, as: .json).utf8))
        #expect(document["durationMs"] == .number("1234.0"))
        #expect(document["hitDeadline"] == .bool(false))
        #expect(
            document.value(at: "/regressions/0")
                == .object([
                    ("endpoint", .string("search")), ("p95Ms", .number("15.8")), ("baselineMedianMs", .number("7.5")),
                    ("factor", .number("1.5")), ("runs", .number("10")),
                ]))
        let detail = try #require(document.value(at: "/endpoints/1"))
        #expect(detail["method"] == .string("GET"))
        #expect(detail["url"] == .string("http://127.0.0.1:8080/api/get?rId=35382"))
        #expect(detail["rateLimited"] == .number("2"))
        #expect(detail["failureCategory"] == .string("http-status"))
        #expect(detail["statusCodes"] == .object([("200", .number("3")), ("503", .number("2"))]))
        // The change objects of `schema diff --format json`.
        let diff = SchemaDiff(changes: SampleRuns.detail.schemaChanges)
        let diffDocument = try JSONValue(parsing: diff.jsonReport())
        #expect(detail["schemaChanges"] == diffDocument["changes"])
        let offline = try #require(document.value(at: "/endpoints/2"))
        #expect(offline["latencyMs"] == .null)
        #expect(offline["down"] == .bool(true))
        #expect(offline["consecutiveFailures"] == .number("3"))
        #expect(offline["retries"] == .number("6"))
        #expect(offline["errors"] == .number("3"))
    }

    @Test func textIsEscapedAsJSON() throws {
        let result = SampleRuns.hostile(name: "q\"uote\\", check: "line\nbreak", message: "tab\there \u{1}")
        let text = Report.render(result, as: .json)
        let document = try JSONValue(parsing: Data(text.utf8))
        #expect(document.value(at: "/endpoints/0/name") == .string("q\"uote\\"))
        #expect(document.value(at: "/endpoints/0/checks/0/name") == .string("line\nbreak"))
        #expect(document.value(at: "/endpoints/0/checks/0/message") == .string("tab\there \u{1}"))
    }
}
