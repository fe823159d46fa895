import APIProbeTestSupport
import Foundation
import HTTPFixtures
import ProbeTestSupport
import Testing

@testable import ProbeReports
@testable import ProbeRunner

/// The `_total` series count every run that shares a history file, so the cron + Pushgateway setup the README
/// recommends gives Prometheus counters that never go back: `increase()` over the runs is what they probed.
@Suite(.tags(.outsideTools), .hangGuard, .temporaryFolder)
struct CumulativeCountersTests {
    static func config(_ api: RawHTTPServer) throws -> ProbeConfig {
        try ProbeConfig.parse(
            Data(
                """
                api: shop
                baseURL: \(api.baseURL.absoluteString)
                endpoints:
                  - {name: cart, path: /cart, samples: 3}
                """.utf8), environment: [:], file: "apiprobe.yml")
    }

    /// One `apiprobe run` of cron: a new session with the history, pushing to `gateway` when given.
    static func cronRun(
        _ config: ProbeConfig, history: URL, gateway: PushgatewayClient? = nil
    ) async throws -> ProbeSession.Round {
        var session = ProbeSession(
            runner: ProbeRunner(config: config, directory: history.deletingLastPathComponent()),
            history: HistoryFile(url: history), pushGateway: gateway)
        return try await session.round()
    }

    @Test func countersGoOnAcrossRunsThatShareTheHistory() async throws {
        let api = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { api.stop() }
        let folder = try TemporaryFolder.make("counters")
        let history = folder.appendingPathComponent("history.jsonl")
        let config = try Self.config(api)
        var seen: [Double?] = []
        for _ in 0..<3 {
            let round = try await Self.cronRun(config, history: history)
            let text = try PrometheusText(
                parsing: Report.render(round.result, as: .prometheus, options: ReportOptions(totals: round.totals)))
            seen.append(text.value("apiprobe_responses_total", ["endpoint": "cart", "code": "200"]))
        }
        #expect(seen == [3, 6, 9])
        let kept = try String(contentsOf: folder.appendingPathComponent("history.totals.json"), encoding: .utf8)
        #expect(
            kept == #"{"endpoints":{"cart":{"codes":{"200":9},"errors":0,"rateLimited":0,"retries":0}},"version":1}"#
                + "\n")

        // A file that is not ours: said, and the counters start again (Prometheus reads that as a reset).
        try Data("{oops".utf8).write(to: folder.appendingPathComponent("history.totals.json"))
        let restarted = try await Self.cronRun(config, history: history)
        #expect(restarted.totals.endpoints["cart"]?.statusCodes == [200: 3])
        #expect(
            restarted.warnings.contains {
                $0.hasSuffix("history.totals.json: not a totals file apiprobe wrote; the counters start again")
            }, "\(restarted.warnings)")
    }

    /// Three cron runs of 3 samples each against a loopback API, pushed to the real Pushgateway under `grouping`
    /// and scraped every second by a real Prometheus; `body` gets the Prometheus once it has scraped the third run
    /// (`series`, the cart's 200 counter, reads 3, 6, 9 after each). `nil` when a tool is missing (recorded).
    static func withThreeScrapedRuns(
        grouping: [String: String], series: String, _ body: (LoopbackServerProcess) async throws -> Void
    ) async throws {
        guard let gatewayBinary = ExternalTools.pushgateway else {
            ExternalTools.recordMissing("prometheus-pushgateway", package: "prometheus-pushgateway")
            return
        }
        guard let prometheusBinary = PrometheusServerProcess.executable else {
            ExternalTools.recordMissing("prometheus", package: "prometheus")
            return
        }
        let api = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { api.stop() }
        let folder = try TemporaryFolder.make("counters-prometheus")
        let history = folder.appendingPathComponent("history.jsonl")
        let config = try Self.config(api)
        try await PushgatewayProcess.with(gatewayBinary) { gateway in
            let target = "\(gateway.baseURL.host ?? "127.0.0.1"):\(gateway.baseURL.port ?? 9091)"
            try await PrometheusServerProcess.with(prometheusBinary, scraping: target) { prometheus in
                let client = PushgatewayClient(url: gateway.baseURL, job: "apiprobe", grouping: grouping)
                for run in 1...3 {
                    _ = try await Self.cronRun(config, history: history, gateway: client)
                    // Wait until Prometheus has scraped this run's value.
                    var value: Double?
                    for _ in 0..<100 {
                        value = try await prometheus.query(series)
                        if value == Double(3 * run) { break }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    try #require(value == Double(3 * run), "run \(run)")
                }
                try await body(prometheus)
            }
        }
    }

    /// The real Pushgateway, scraped every second by a real Prometheus: three cron runs of 3 samples each give a
    /// counter at 9 with no reset, and `increase()` over the runs sees them.
    @Test func prometheusScrapingThePushgatewaySeesACounterThatNeverGoesBack() async throws {
        let series = #"apiprobe_responses_total{job="apiprobe",instance="cron",endpoint="cart",code="200"}"#
        try await Self.withThreeScrapedRuns(grouping: ["instance": "cron"], series: series) { prometheus in
            #expect(try await prometheus.query("resets(\(series)[5m])") == 0)
            let increase = try #require(try await prometheus.query("increase(\(series)[5m])"))
            #expect(increase >= 6, "the counter rose from 3 to 9 over the runs: \(increase)")
        }
    }

    /// deploy/grafana/apiprobe.json against the real Prometheus scraping the real Pushgateway after three cron runs
    /// pushed under `api` and `instance`, as `apiprobe run --push-gateway` pushes: every panel's query is accepted
    /// and has data, but for the certificate's, which needs https, and the failed responses', which these runs
    /// (all 200) have none of; that one has data once a run gets a 503.
    @Test func theShippedDashboardsPanelsHaveDataInARealPrometheus() async throws {
        let dashboard = try GrafanaDashboard()
        let withoutData = ["TLS certificate expires in": "plain HTTP"]
        let expressionsWithoutData = [#"code=~"[45]..""#: "no failed response"]
        let series = #"apiprobe_responses_total{api="shop",instance="cron",endpoint="cart",code="200"}"#
        try await Self.withThreeScrapedRuns(grouping: ["api": "shop", "instance": "cron"], series: series) {
            prometheus in
            for panel in dashboard.panels {
                for expression in panel.expressions {
                    let query = GrafanaDashboard.resolve(expression, api: "shop", instance: "cron")
                    let value = try await prometheus.query(query)
                    if let reason = withoutData[panel.title]
                        ?? expressionsWithoutData.first(where: { expression.contains($0.key) })?.value
                    {
                        #expect(value == nil, "\(panel.title): data without \(reason)?")
                    } else {
                        #expect(value != nil, "\(panel.title): no data for \(query)")
                    }
                }
            }
        }
    }
}
