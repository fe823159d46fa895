import APIProbeTestSupport
import Foundation
import Testing

/// `apiprobe status-page` as the built binary: from the history `apiprobe run` writes to a site, and bad input.
@Suite("status-page, as the built binary", .tags(.commandLine), .hangGuard, .temporaryFolder)
struct StatusPageCommandTests {
    static let token = "tok-PLANTED-cli-5150"

    /// Two rounds against a port nothing listens on (refused at once), then the page: the endpoint is down
    /// after 2 failed rounds, the incident says why, and the token of the config is in no file.
    @Test func runTwiceThenWriteThePage() async throws {
        let directory = try TemporaryFolder.make("status-page-cli")
        try Data(
            """
            api: shop
            baseURL: http://127.0.0.1:1
            downAfter: 2
            defaults: {samples: 1, timeout: 2s, retries: 0}
            endpoints:
              - {name: cart, path: "/cart?api_key=${TOKEN}", headers: {Authorization: "Bearer ${TOKEN}"}}
            """.utf8
        ).write(to: directory.appendingPathComponent("apiprobe.yml"))
        let environment = ["TOKEN": Self.token]
        for _ in 0..<2 {
            let run = try await CommandLineRunner.run(
                ["run", "--history", "history.jsonl", "--report", "json=report.json"], environment: environment,
                in: directory)
            #expect(run.status == 1, "\(run)")
        }
        let result = try await CommandLineRunner.run(
            [
                "status-page", "--history", "history.jsonl", "--output", "site", "--report", "report.json", "--config",
                "apiprobe.yml",
            ], environment: environment, in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.standardOutput
                == "wrote site/index.html and 8 badges: Major outage; 1 endpoint(s), 2 rounds, 1 incident(s)\n")

        let html = try String(contentsOf: directory.appendingPathComponent("site/index.html"), encoding: .utf8)
        #expect(html.contains("<h1>shop status</h1>"))
        #expect(html.contains(#"<td data-field="state" data-state="down">"#))
        #expect(html.contains(#"<td data-field="uptime-24h">0.00%</td>"#))
        #expect(html.contains(#"<td data-field="failures">http-status, refused</td>"#))
        #expect(html.contains("<strong class=\"ongoing\">ongoing</strong>"))
        #expect(html.contains("http://127.0.0.1:1/cart?api_key="))
        for file in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            let url = directory.appendingPathComponent(file)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            #expect(!text.contains(Self.token), "\(file) holds the token")
        }
    }

    func folder(_ files: [String: String]) throws -> URL {
        let directory = try TemporaryFolder.make("status-page-bad")
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        return directory
    }

    static let goodLine =
        #"{"endpoints":{"a":{"p50":5,"p95":9,"passed":true}},"passed":true,"startedAt":"2026-11-22T18:00:00Z","version":1}"#

    @Test(
        arguments: [
            (
                ["status-page", "--history", "missing.jsonl", "--output", "site"],
                "missing.jsonl: expected a history file (apiprobe run --history FILE writes one), found no such file"
            ),
            (
                ["status-page", "--history", "empty.jsonl", "--output", "site"],
                "empty.jsonl: expected at least one history line (apiprobe run --history FILE), found an empty file"
            ),
            (
                ["status-page", "--history", "bad.jsonl", "--output", "site"],
                #"bad.jsonl:2:1: expected a history record with /startedAt an ISO 8601 time (2026-11-22T18:00:00Z), found string "yesterday""#
            ),
            (
                ["status-page", "--history", "report.json", "--output", "site"],
                "report.json:1:2: expected a history line: "
            ),
            (
                ["status-page", "--history", "good.jsonl", "--output", "site", "--report", "bad-report.json"],
                "bad-report.json: /endpoints: expected an array of endpoints, found string \"none\""
            ),
            (
                ["status-page", "--history", "good.jsonl", "--output", "good.jsonl/site"],
                "good.jsonl/site: expected a folder that can be created or written"
            ),
            (
                ["status-page", "--history", "good.jsonl", "--output", "site", "--at", "tomorrow"],
                "expected an ISO 8601 UTC time like 2026-11-22T18:00:00Z"
            ),
            (
                ["status-page", "--history", "good.jsonl", "--output", "site", "--down-after", "0"],
                "--down-after 0: expected a whole number from 1 to 1000"
            ),
        ])
    func badInputExitsTwoNamingTheFileAndPlace(arguments: [String], message: String) async throws {
        let directory = try folder([
            "empty.jsonl": "",
            "good.jsonl": Self.goodLine + "\n",
            "bad.jsonl": Self.goodLine + "\n"
                + #"{"endpoints":{},"passed":true,"startedAt":"yesterday","version":1}"# + "\n",
            "report.json": "{\n  \"passed\": true\n}\n",
            "bad-report.json": #"{"startedAt": "2026-11-22T18:00:00Z", "endpoints": "none"}"#,
        ])
        let result = try await CommandLineRunner.run(arguments, in: directory)
        #expect(result.status == 2, "\(result)")
        #expect(result.standardError.contains(message), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("site/index.html").path))
    }

    @Test func theAtOptionMeasuresTheWindowsFromAGivenTime() async throws {
        let directory = try folder([
            "good.jsonl": Self.goodLine + "\n"
                + #"{"endpoints":{"a":{"failures":["timeout"],"p95":null,"passed":false}},"passed":false,"startedAt":"2026-11-22T18:05:00Z","version":1}"#
                + "\n"
        ])
        // As of 18:00 the failure at 18:05 has not happened: 100% and operational.
        let result = try await CommandLineRunner.run(
            ["status-page", "--history", "good.jsonl", "--output", "site", "--at", "2026-11-22T18:00:00Z"],
            in: directory)
        #expect(result.status == 0, "\(result)")
        let html = try String(contentsOf: directory.appendingPathComponent("site/index.html"), encoding: .utf8)
        #expect(html.contains(#"<tr data-overall="true" class="overall">"#))
        #expect(html.contains(#"<td data-field="uptime-24h">100.00%</td>"#))
        #expect(html.contains("All systems operational"))
        let now = try await CommandLineRunner.run(
            ["status-page", "--history", "good.jsonl", "--output", "now"], in: directory)
        #expect(now.status == 0, "\(now)")
        let latest = try String(contentsOf: directory.appendingPathComponent("now/index.html"), encoding: .utf8)
        #expect(latest.contains(#"<td data-field="uptime-24h">50.00%</td>"#))
        #expect(latest.contains("Major outage"))
    }
}
