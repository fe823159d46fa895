import APIProbeShared
import APIProbeTestSupport
import Foundation
import HTTPFixtures
import ProbeClient
import ProbeRunner
import Testing

/// One retry rule for every sender (issue 36): `record` retries and waits out a rate limit as `run` does, and the
/// client sends a request's header fields as given.
@Suite(.hangGuard, .temporaryFolder)
struct RetryRuleTests {
    /// A server that answers the first `failures` requests with `failure`, then a JSON body.
    static func flaky(failures: Int, _ failure: RawHTTPServer.Behaviour) throws -> RawHTTPServer {
        let count = Locked(0)
        return try RawHTTPServer { _ in
            let seen = count.withLock { value -> Int in
                value += 1
                return value
            }
            return seen <= failures
                ? failure : .respond(status: 200, headers: ["Content-Type": "application/json"], body: #"{"ok": true}"#)
        }
    }

    static func record(_ server: RawHTTPServer, timeout: Duration = .seconds(5)) async throws -> (
        RecordingResult, URL
    ) {
        let folder = try TemporaryFolder.make("retry-rule")
        let config = ProbeConfig(
            api: "shop", baseURL: server.baseURL, stubsDirectory: "Stubs",
            endpoints: [EndpointConfig(name: "items", path: "/items", timeout: timeout, retries: 1)])
        return (try await Recorder(config: config, directory: folder).record(), folder)
    }

    /// Before, `record` wrote the 429 as the fixture (with a warning); `run` waited it out.
    @Test func recordWaitsOutARateLimitAsRunDoes() async throws {
        let server = try Self.flaky(
            failures: 1, .respond(status: 429, headers: ["Retry-After": "0"], body: #"{"error": "slow down"}"#))
        defer { server.stop() }
        let (result, folder) = try await Self.record(server)
        let endpoint = try #require(result.endpoints.first)
        #expect(endpoint.status == 200, "\(endpoint)")
        #expect(endpoint.warnings.isEmpty, "\(endpoint.warnings)")
        #expect(server.requestCount == 2)
        let fixture = try Exchange.load(from: folder.appendingPathComponent("Stubs/shop/items.json"))
        #expect(fixture.response.status == 200)
    }

    /// Before, `record` gave up after a timed-out attempt (its own rule retried connection errors only); `run`
    /// retried it.
    @Test func recordRetriesATimedOutAttemptAsRunDoes() async throws {
        let server = try Self.flaky(failures: 1, .silent)
        defer { server.stop() }
        // Two seconds: the silent attempt times out, and the retry's answer is not overtaken by its own timer
        // while the test waits for a cooperative pool that CPU-heavy tests beside it hold.
        let (result, _) = try await Self.record(server, timeout: .seconds(2))
        let endpoint = try #require(result.endpoints.first)
        #expect(endpoint.outcome == .new, "\(endpoint.message ?? "")")
        #expect(endpoint.status == 200)
        #expect(server.requestCount == 2)

        let runServer = try Self.flaky(failures: 1, .silent)
        defer { runServer.stop() }
        let run = await ProbeRunner(
            config: ProbeConfig(
                api: "shop", baseURL: runServer.baseURL,
                endpoints: [EndpointConfig(name: "items", path: "/items", timeout: .seconds(2), retries: 1)]),
            directory: FileManager.default.temporaryDirectory
        ).run()
        let sample = try #require(run.endpoints.first?.samples.first)
        #expect(sample.status == 200 && sample.retries == 1, "run and record retried alike")
    }

    /// `serve --proxy` passes the client's fields on as sent: before, the request went through a `URLRequest`, whose
    /// fields are a dictionary, so two `X-Tag` fields reached the live API as one joined field.
    @Test func repeatedFieldsReachTheLiveAPIAsSent() async throws {
        let upstream = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { upstream.stop() }
        let forwarder = LiveForwarder(upstream: upstream.baseURL)
        defer { forwarder.close() }
        _ = try await forwarder.forward(
            method: "GET", target: "/items", headers: [("X-Tag", "a"), ("Accept", "application/json"), ("X-Tag", "b")],
            body: nil, recordedURL: "https://api.example.test/items")
        let head = try #require(upstream.requestHeads.first)
        let lines = head.split(separator: "\r\n").map(String.init)
        #expect(lines.filter { $0.lowercased().hasPrefix("x-tag:") } == ["X-Tag: a", "X-Tag: b"], "\(lines)")
        let order = lines.compactMap { line in
            ["X-Tag: a", "Accept: application/json", "X-Tag: b"].firstIndex(of: line)
        }
        #expect(order == [0, 1, 2], "in the client's order: \(lines)")
    }
}
