import APIProbeTestSupport
import Foundation
import HTTPFixtures
import ProbeRunner
import Testing

/// A per-endpoint `interval`: the endpoint is probed in the rounds where its interval has passed since its last
/// probe, by this process or as the history file says (a cron job that starts a new process every time).
@Suite(.hangGuard, .temporaryFolder)
struct EndpointIntervalTests {
    func config(baseURL: URL, interval: String = "1h") throws -> ProbeConfig {
        try ProbeConfig.parse(
            Data(
                """
                api: shop
                baseURL: \(baseURL.absoluteString)
                endpoints:
                  - {name: health, path: /health}
                  - {name: certificate, path: /cert, interval: \(interval)}
                """.utf8), environment: [:], file: "apiprobe.yml")
    }

    @Test func anEndpointIsProbedWhenItsIntervalHasPassed() async throws {
        let api = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { api.stop() }
        let history = try TemporaryFolder.url.appendingPathComponent("interval.jsonl")
        let probe = try config(baseURL: api.baseURL)
        #expect(probe.endpoints.map(\.interval) == [nil, .seconds(3_600)])
        var session = ProbeSession(
            runner: ProbeRunner(config: probe, directory: FileManager.default.temporaryDirectory),
            history: HistoryFile(url: history))

        // Never probed: both are due.
        let start = Date()
        #expect(try session.dueEndpoints(at: start, tick: .seconds(60)) == ["health", "certificate"])
        let first = try await session.round(endpoints: session.dueEndpoints(at: start, tick: .seconds(60)))
        #expect(first.result.endpoints.map(\.name).sorted() == ["certificate", "health"])
        #expect(api.requests.map(\.path).sorted() == ["/cert", "/health"])

        // A minute later only the endpoint without an interval; just before the hour (within half a tick) both. The
        // hour counts from when the round started (on a loaded machine, seconds after `start`).
        let probed = first.result.startedAt
        #expect(try session.dueEndpoints(at: probed + 60, tick: .seconds(60)) == ["health"])
        #expect(try session.dueEndpoints(at: probed + 3_000, tick: .seconds(60)) == ["health"])
        #expect(try session.dueEndpoints(at: probed + 3_580, tick: .seconds(60)) == ["health", "certificate"])
        let second = try await session.round(endpoints: session.dueEndpoints(at: start + 60, tick: .seconds(60)))
        #expect(second.result.endpoints.map(\.name) == ["health"])
        #expect(api.requests.filter { $0.path == "/cert" }.count == 1)

        // A new process (cron) reads the last probe from the history file.
        var next = ProbeSession(
            runner: ProbeRunner(config: probe, directory: FileManager.default.temporaryDirectory),
            history: HistoryFile(url: history))
        #expect(try next.dueEndpoints(at: start + 900) == ["health"])
        #expect(try next.dueEndpoints(at: start + 3_600) == ["health", "certificate"])

        // Without a history file, every process starts with nothing probed.
        var forgetful = ProbeSession(
            runner: ProbeRunner(config: probe, directory: FileManager.default.temporaryDirectory))
        #expect(try forgetful.dueEndpoints(at: start + 900) == ["health", "certificate"])

        // Named with --only, an endpoint is due whatever its interval.
        var only = ProbeSession(
            runner: ProbeRunner(config: probe, directory: FileManager.default.temporaryDirectory),
            only: ["certificate"], history: HistoryFile(url: history))
        #expect(try only.dueEndpoints(at: start + 60) == ["certificate"])
    }

    @Test(arguments: ["0.5s", "0s", "often", "-1m"])
    func aBadIntervalIsAConfigErrorWithItsPlace(_ text: String) throws {
        let error = #expect(throws: InputError.self) {
            _ = try config(baseURL: URL(string: "http://127.0.0.1:9")!, interval: text)
        }
        #expect(error?.file == "apiprobe.yml")
        #expect(error?.position.line == 5)
        #expect(error?.key == "endpoints.certificate.interval")
        #expect(error?.expected.contains("duration") == true)
    }
}
