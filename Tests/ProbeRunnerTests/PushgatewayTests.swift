import APIProbeTestSupport
import Foundation
import ProbeReports
import ProbeRunner
import ProbeTestSupport
import Testing

@Suite struct PushgatewayURLTests {
    @Test func groupPathEscapesValuesAndUsesBase64ForSlashes() throws {
        let client = PushgatewayClient(
            url: URL(string: "http://127.0.0.1:9091/")!, job: "api probe",
            grouping: ["instance": "eu/1", "region": "", "zone": "a-b_c.d~e"])
        #expect(
            try client.groupURL().absoluteString
                == "http://127.0.0.1:9091/metrics/job/api%20probe/instance@base64/ZXUvMQ==/region@base64/=/zone/a-b_c.d~e"
        )
        let prefixed = PushgatewayClient(url: URL(string: "http://127.0.0.1:9091/gateway")!, job: "a/b?")
        #expect(try prefixed.groupURL().absoluteString == "http://127.0.0.1:9091/gateway/metrics/job@base64/YS9iPw==")
    }

    @Test func badGroupingIsRefusedBeforeSending() {
        let url = URL(string: "http://127.0.0.1:9091")!
        #expect(throws: PushgatewayError.self) { try PushgatewayClient(url: url, job: "").groupURL() }
        #expect(throws: PushgatewayError.self) {
            try PushgatewayClient(url: url, grouping: ["bad-name": "x"]).groupURL()
        }
        #expect(throws: PushgatewayError.self) { try PushgatewayClient(url: url, grouping: ["job": "x"]).groupURL() }
        #expect(throws: PushgatewayError.self) {
            try PushgatewayClient(url: URL(string: "file:///tmp/x")!).groupURL()
        }
    }

    @Test(.hangGuard)
    func anUnreachableGatewayIsAnErrorNamingTheURL() async throws {
        let port = try ExternalTools.freeLoopbackPort()  // nothing listens there once picked
        let client = PushgatewayClient(url: URL(string: "http://127.0.0.1:\(port)")!, timeout: .seconds(5))
        let error = await #expect(throws: PushgatewayError.self) { try await client.push("x 1\n") }
        #expect(error?.description.hasPrefix("Pushgateway http://127.0.0.1:\(port)/metrics/job/apiprobe: ") == true)
        #expect(error?.status == nil)
    }
}

/// Against the real `prometheus-pushgateway` (Debian package), started on a loopback port for this test.
@Suite(.tags(.outsideTools), .hangGuard)
struct PushgatewayTests {
    @Test func pushedReportIsServedWithTheJobAndGroupingLabels() async throws {
        guard let binary = ExternalTools.pushgateway else {
            ExternalTools.recordMissing("prometheus-pushgateway", package: "prometheus-pushgateway")
            return
        }
        try await PushgatewayProcess.with(binary) { gateway in
            // A group of this test's own: whatever else a gateway on this machine holds is not looked at.
            let instance = "eu/\(UUID().uuidString)"
            let client = PushgatewayClient(url: gateway.baseURL, job: "apiprobe", grouping: ["instance": instance])

            try await client.push(Report.render(SampleRuns.mixed, as: .prometheus))
            let (body, status) = try await gateway.get("/metrics")
            #expect(status == 200)
            let served = try PrometheusText(parsing: body)
            let group = ["job": "apiprobe", "instance": instance]
            func labels(_ extra: [String: String]) -> [String: String] { group.merging(extra) { $1 } }
            #expect(served.value("apiprobe_up", labels(["endpoint": "search"])) == 1)
            #expect(served.value("apiprobe_up", labels(["endpoint": "offline"])) == 0)
            #expect(served.value("apiprobe_responses_total", labels(["endpoint": "detail", "code": "503"])) == 2)
            #expect(
                served.value("apiprobe_request_duration_seconds", labels(["endpoint": "search", "quantile": "0.95"]))
                    == 0.0158)
            #expect(served.value("apiprobe_request_duration_seconds_count", labels(["endpoint": "search"])) == 5)
            #expect(served.value("apiprobe_run_passed", group) == 0)
            #expect(served.value("push_failure_time_seconds", group) == 0)

            // PUT replaces the group: an endpoint gone from the run is gone from the gateway.
            try await client.push(Report.render(SampleRuns.green, as: .prometheus))
            let replaced = try PrometheusText(parsing: try await gateway.get("/metrics").0)
            let ours = replaced.series("apiprobe_up").filter {
                $0.labels["job"] == "apiprobe" && $0.labels["instance"] == instance
            }
            #expect(ours.map { $0.labels["endpoint"] } == ["search"])
            #expect(replaced.value("apiprobe_run_passed", group) == 1)
        }
    }

    /// A CI matrix of `apiprobe run`s, each with its own config and host, pushes to one gateway: every run keeps
    /// its series (they overwrote each other when all pushed to job="apiprobe" with no grouping key).
    @Test func pushesOfDifferentConfigsAndInstancesKeepTheirOwnSeries() async throws {
        guard let binary = ExternalTools.pushgateway else {
            ExternalTools.recordMissing("prometheus-pushgateway", package: "prometheus-pushgateway")
            return
        }
        try await PushgatewayProcess.with(binary) { gateway in
            let run = UUID().uuidString
            let recipesEU = PushgatewayClient.forRun(
                url: gateway.baseURL, api: "recipes", instance: "eu-\(run)", labels: ["shard": "1"])
            let recipesUS = PushgatewayClient.forRun(url: gateway.baseURL, api: "recipes", instance: "us-\(run)")
            let github = PushgatewayClient.forRun(url: gateway.baseURL, api: "github", instance: "eu-\(run)")
            try await recipesEU.push(Report.render(SampleRuns.mixed, as: .prometheus))
            try await recipesUS.push(Report.render(SampleRuns.green, as: .prometheus))
            try await github.push(Report.render(SampleRuns.green, as: .prometheus))
            // The EU recipes probe pushes again: its own group is replaced, the others stay.
            try await recipesEU.push(Report.render(SampleRuns.green, as: .prometheus))

            let served = try PrometheusText(parsing: try await gateway.get("/metrics").0)
            let groups = Set(
                served.series("apiprobe_run_passed").filter { $0.labels["instance"]?.hasSuffix(run) == true }.map {
                    "\($0.labels["job"] ?? "")/\($0.labels["api"] ?? "")/\($0.labels["instance"] ?? "")/\($0.labels["shard"] ?? "")"
                })
            #expect(
                groups == [
                    "apiprobe/recipes/eu-\(run)/1", "apiprobe/recipes/us-\(run)/", "apiprobe/github/eu-\(run)/",
                ])
            let euEndpoints = served.series("apiprobe_up").filter { $0.labels["instance"] == "eu-\(run)" }
                .filter { $0.labels["api"] == "recipes" }.map { $0.labels["endpoint"] ?? "" }
            #expect(euEndpoints == ["search"])  // the replaced group holds the last push only
        }
    }

    @Test func aRejectedPushNamesTheURLTheStatusAndTheReason() async throws {
        guard let binary = ExternalTools.pushgateway else {
            ExternalTools.recordMissing("prometheus-pushgateway", package: "prometheus-pushgateway")
            return
        }
        try await PushgatewayProcess.with(binary) { gateway in
            let client = PushgatewayClient(url: gateway.baseURL, job: "apiprobe")
            let error = await #expect(throws: PushgatewayError.self) {
                try await client.push("apiprobe_up{endpoint=\"unclosed} 1\n")
            }
            #expect(error?.status == 400)
            #expect(error?.url == gateway.baseURL.absoluteString + "/metrics/job/apiprobe")
            #expect(
                error?.description.hasPrefix(
                    "Pushgateway \(gateway.baseURL.absoluteString)/metrics/job/apiprobe answered 400") == true)
            #expect(error?.body.isEmpty == false)
        }
    }
}
