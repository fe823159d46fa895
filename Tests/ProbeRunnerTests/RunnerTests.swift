import APIProbeTestSupport
import Foundation
import HTTPFixtures
import JSONShape
import ProbeClient
import RecipesServer
import Testing

@testable import ProbeRunner

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// End-to-end runner tests on loopback: the real recipes server in-process, and a misbehaving raw server.
@Suite("Probe runner", .serialized, .hangGuard, .temporaryFolder)
struct RunnerTests {
    func temporaryDirectory() throws -> URL { try TemporaryFolder.make("probe-runner") }

    func config(_ base: URL, _ endpoints: [EndpointConfig], deadline: Duration = .seconds(30)) -> ProbeConfig {
        ProbeConfig(api: "recipes", baseURL: base, endpoints: endpoints, concurrency: 4, deadline: deadline)
    }

    /// A snapshot inferred from the normal server's search response, written to `directory`.
    func writeSnapshot(from server: RecipesServer, into directory: URL) async throws -> String {
        let url = server.baseURL.appendingPathComponent("api/search")
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "q", value: "chicken")]
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, _) = try await session.data(from: try #require(components.url))
        let snapshot = SchemaSnapshot(shape: try ShapeNode.infer(from: data), sampleCount: 1)
        let path = "Snapshots/recipes/search.schema.json"
        try AtomicFile.write(snapshot.encoded(), to: directory.appendingPathComponent(path))
        return path
    }

    @Test func passingExpectationsOfEveryKindHold() async throws {
        try await RecipesServer.with { server in
            let directory = try temporaryDirectory()
            let snapshot = try await writeSnapshot(from: server, into: directory)
            let endpoint = EndpointConfig(
                name: "search", path: "/api/search", query: [QueryItem(name: "q", value: "chicken")],
                samples: 4, timeout: .seconds(5),
                expectations: Expectations(
                    status: StatusExpectation(ranges: [200...200]),
                    headers: [
                        HeaderExpectation(name: "content-type", rule: .matches("^application/json")),
                        HeaderExpectation(name: "Content-Length", rule: .exists),
                    ],
                    body: [
                        try BodyConditionParser.parse("/count > 0"),
                        try BodyConditionParser.parse("/recipes length >= 1"),
                        try BodyConditionParser.parse("/recipes/0/title exists"),
                        try BodyConditionParser.parse("/recipes/0/recipe_id matches ^[0-9]+$"),
                        try BodyConditionParser.parse("/missing not-exists"),
                    ],
                    schema: SchemaExpectation(snapshot: snapshot),
                    latency: [LatencyBudget(percentile: 95, limit: .seconds(5))]
                ))
            let result = await ProbeRunner(config: config(server.baseURL, [endpoint]), directory: directory).run()
            let search = try #require(result.endpoints.first)
            #expect(result.passed, "\(search.checks.filter { !$0.passed })")
            #expect(search.samples.count == 4)
            #expect(search.statusCodes == [200: 4])
            #expect(search.latency?.count == 4)
            #expect(search.samples.allSatisfy { $0.bytes > 100 && $0.latency > .zero })
            #expect(search.checks.map(\.name).contains("schema \(snapshot)"))
            let expectedChecks = 11  // reachable, status, 2 headers, 5 conditions, schema, latency
            #expect(search.checks.count == expectedChecks)
            #expect(search.consecutiveFailures == 0)
            #expect(!search.isDown)
        }
    }

    /// The loader collects a body from the delegate calls of its session, on Linux through its own
    /// serial delegate queue: a body of many chunks must arrive whole and in order for every sample,
    /// with the response head (time to first byte) before the end, while other samples are in flight.
    @Test func largeBodiesArriveWholeAndInOrderUnderConcurrency() async throws {
        let items = (0..<20_000).map { "{\"n\":\($0),\"pad\":\"\(String(repeating: "x", count: 16))\"}" }
        let body = "{\"items\":[" + items.joined(separator: ",") + "]}"
        let server = try RawHTTPServer { _ in
            .respond(status: 200, headers: ["Content-Type": "application/json"], body: body)
        }
        defer { server.stop() }
        let endpoints = try (0..<12).map { index in
            EndpointConfig(
                name: "big\(index)", path: "/big/\(index)", samples: 3, timeout: .seconds(300),
                expectations: Expectations(body: [
                    try BodyConditionParser.parse("/items length == 20000"),
                    try BodyConditionParser.parse("/items/19999/n == 19999"),
                    try BodyConditionParser.parse("/items/10000/n == 10000"),
                ]))
        }
        // Minutes: the test judges the bodies, not the time; on two cores shared by some 750 tests, 36 samples of
        // 500 KB can wait a minute for Swift's cooperative pool.
        var settings = config(server.baseURL, endpoints, deadline: .seconds(600))
        settings.concurrency = 8
        let result = await ProbeRunner(config: settings, directory: try temporaryDirectory()).run()
        #expect(result.passed, "\(result.endpoints.flatMap(\.checks).filter { !$0.passed })")
        let samples = result.endpoints.flatMap(\.samples)
        #expect(samples.count == 36)
        #expect(samples.allSatisfy { $0.bytes == body.utf8.count })
        #expect(samples.allSatisfy { ($0.timeToFirstByte ?? .seconds(99)) <= $0.latency })
    }

    @Test func failingExpectationsAreClassified() async throws {
        try await RecipesServer.with(.init(latency: .fixed(.milliseconds(30)))) { server in
            let endpoint = EndpointConfig(
                name: "search", path: "/api/search", query: [QueryItem(name: "q", value: "chicken")], samples: 2,
                expectations: Expectations(
                    headers: [HeaderExpectation(name: "Content-Type", rule: .equals("text/plain"))],
                    body: [
                        try BodyConditionParser.parse("/count > 1000"),
                        try BodyConditionParser.parse(#"/recipes/0/publisher == "Nobody""#),
                    ],
                    latency: [LatencyBudget(percentile: 50, limit: .milliseconds(1))]
                ))
            let status = EndpointConfig(
                name: "status", path: "/api/get", query: [QueryItem(name: "rId", value: "1")],
                expectations: Expectations(status: StatusExpectation(ranges: [200...200])))
            let result = await ProbeRunner(
                config: config(server.baseURL, [endpoint, status]), directory: URL(fileURLWithPath: "/")
            )
            .run()
            #expect(!result.passed)
            let search = try #require(result.endpoints.first)
            let failed = Dictionary(uniqueKeysWithValues: search.checks.filter { !$0.passed }.map { ($0.name, $0) })
            #expect(failed["header Content-Type: text/plain"]?.category == .header)
            #expect(failed["/count > 1000"]?.category == .bodyCondition)
            #expect(failed["/count > 1000"]?.message?.contains("/count: expected > 1000, found 30") == true)
            #expect(failed[#"/recipes/0/publisher == "Nobody""#]?.message?.contains(#"expected "Nobody""#) == true)
            let latency = try #require(failed["latency p50 < 1ms"])
            #expect(latency.category == .latencyBudget)
            #expect(latency.message?.hasPrefix("p50 was ") == true)
            #expect((search.latency?.p50 ?? 0) >= 30)
            let get = try #require(result.endpoints.last)
            #expect(get.failureCategory == .httpStatus)
            #expect(get.statusCodes == [404: 1])
            #expect(get.consecutiveFailures == 1)
        }
    }

    @Test func aServerThatIsDownIsRefused() async throws {
        // A port nothing listens on, below the ephemeral range (a stopped server's port could be handed to a test
        // running beside this one).
        let base = try #require(URL(string: "http://127.0.0.1:\(ClosedPort.loopback())"))
        var config = config(base, [EndpointConfig(name: "health", path: "/api/health", samples: 2)])
        config.downAfter = 2
        let runner = ProbeRunner(config: config, directory: URL(fileURLWithPath: "/"))
        let first = try #require(await runner.run().endpoints.first)
        #expect(first.failureCategory == .refused)
        #expect(first.errors == 2)
        #expect(first.consecutiveFailures == 1)
        #expect(!first.isDown)
        let second = try #require(
            await runner.run(previousFailures: ["health": 1], previousOutages: ["health": 1]).endpoints.first)
        #expect(second.consecutiveFailures == 2)
        #expect(second.isDown)
    }

    @Test func aSlowServerTimesOut() async throws {
        try await RecipesServer.with(.init(latency: .fixed(.seconds(3)))) { server in
            let endpoint = EndpointConfig(name: "health", path: "/api/search?q=a", timeout: .milliseconds(300))
            let started = ContinuousClock.now
            let result = await ProbeRunner(
                config: config(server.baseURL, [endpoint]), directory: URL(fileURLWithPath: "/")
            )
            .run()
            let health = try #require(result.endpoints.first)
            #expect(health.failureCategory == .timeout)
            let elapsed = ContinuousClock.now - started
            // Bounds with a meaning, not a guess at the machine's speed: cut before the server's 3 s answer.
            #expect(elapsed < .seconds(3))
            #expect(elapsed >= .milliseconds(290))
            #expect(health.samples.first.map { $0.latency >= .milliseconds(290) } == true)
        }
    }

    @Test func aDroppedConnectionIsRetriedAndClassified() async throws {
        let raw = try RawHTTPServer { _ in .dropMidBody }
        defer { raw.stop() }
        let endpoint = EndpointConfig(name: "drop", path: "/drop", timeout: .seconds(5), retries: 2)
        let result = await ProbeRunner(config: config(raw.baseURL, [endpoint]), directory: URL(fileURLWithPath: "/"))
            .run()
        let drop = try #require(result.endpoints.first)
        #expect(drop.failureCategory == .connection)
        #expect(drop.samples.first?.retries == 2)
        #expect(drop.retries == 2)
        #expect(raw.requestCount == 3)
    }

    @Test func aTricklingBodyIsCutByTheTimeoutAndTheDeadline() async throws {
        let raw = try RawHTTPServer { _ in .trickle(bytes: 40, interval: .milliseconds(50)) }
        defer { raw.stop() }
        let slow = EndpointConfig(name: "slow", path: "/slow", timeout: .milliseconds(400))
        let result = await ProbeRunner(config: config(raw.baseURL, [slow]), directory: URL(fileURLWithPath: "/")).run()
        let sample = try #require(result.endpoints.first?.samples.first)
        #expect(sample.failure?.category == .timeout)
        #expect(sample.latency < .seconds(2))  // the whole body takes 2 s: cut before it ended
        #expect(sample.latency >= .milliseconds(390))
        #expect(!result.hitDeadline)

        let long = EndpointConfig(name: "long", path: "/long", samples: 3, timeout: .seconds(10))
        let started = ContinuousClock.now
        let cut = await ProbeRunner(
            config: config(raw.baseURL, [long], deadline: .milliseconds(600)), directory: URL(fileURLWithPath: "/")
        ).run()
        #expect(ContinuousClock.now - started < .seconds(2))  // one sample's body alone takes 2 s
        #expect(cut.hitDeadline, "\(cut.endpoints.first?.samples.map { $0.failure?.message ?? "" } ?? [])")
        #expect(cut.endpoints.first?.samples.count == 3)
        #expect(cut.endpoints.first?.samples.allSatisfy { $0.failure?.category == .timeout } == true)
    }

    @Test func serviceUnavailableWithRetryAfterIsRateLimitedNotAnOutage() async throws {
        try await RecipesServer.with(.init(failureRate: 1.0, retryAfterSeconds: 0)) { server in
            var config = config(server.baseURL, [EndpointConfig(name: "health", path: "/api/search?q=a", samples: 2)])
            config.downAfter = 1
            let result = await ProbeRunner(config: config, directory: URL(fileURLWithPath: "/"))
                .run(previousFailures: ["health": 0])
            let health = try #require(result.endpoints.first)
            #expect(!health.passed)
            #expect(health.failureCategory == .rateLimited)
            #expect(health.rateLimited == 2)
            #expect(health.statusCodes == [503: 2])
            #expect(health.consecutiveFailures == 0)
            #expect(!health.isDown)
        }
    }

    @Test func schemaDriftIsCaughtAndAMissingSnapshotFails() async throws {
        try await RecipesServer.with { server in
            let directory = try temporaryDirectory()
            let snapshot = try await writeSnapshot(from: server, into: directory)
            server.setDrifted(true)
            let endpoints = [
                EndpointConfig(
                    name: "search", path: "/api/search?q=chicken",
                    expectations: Expectations(schema: SchemaExpectation(snapshot: snapshot))),
                EndpointConfig(
                    name: "nosnap", path: "/api/search?q=chicken",
                    expectations: Expectations(
                        schema: SchemaExpectation(snapshot: "Snapshots/recipes/none.schema.json"))),
            ]
            let result = await ProbeRunner(config: config(server.baseURL, endpoints), directory: directory).run()
            let search = try #require(result.endpoints.first)
            #expect(search.failureCategory == .schemaDrift)
            #expect(search.schemaChanges.contains { $0.path.contains("social_rank") && $0.severity == .breaking })
            let missing = try #require(result.endpoints.last?.checks.last)
            #expect(!missing.passed)
            #expect(missing.message?.contains("no snapshot at Snapshots/recipes/none.schema.json") == true)
        }
    }

    @Test func thePerHostRateLimitSpacesRequests() async throws {
        let raw = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { raw.stop() }
        var config = config(raw.baseURL, (0..<3).map { EndpointConfig(name: "e\($0)", path: "/e\($0)", samples: 2) })
        config.requestsPerSecondPerHost = 10
        let result = await ProbeRunner(config: config, directory: URL(fileURLWithPath: "/")).run()
        #expect(result.passed)
        let times = raw.requestTimes.sorted()
        #expect(times.count == 6)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        // Send slots are 100 ms apart; arrival times add connection set-up jitter of a few ms.
        #expect(gaps.allSatisfy { $0 >= .milliseconds(50) }, "\(gaps)")
        #expect(try #require(times.last) - times[0] >= .milliseconds(480), "\(gaps)")
    }

    @Test func redirectsAreFollowedAndCredentialsRedacted() async throws {
        let raw = try RawHTTPServer { path in
            path.hasPrefix("/old")
                ? .redirect(location: "/new?token=abc") : .respond(status: 200, headers: [:], body: "{}")
        }
        defer { raw.stop() }
        let endpoint = EndpointConfig(name: "moved", path: "/old?api_key=s3cret&q=1")
        let result = await ProbeRunner(config: config(raw.baseURL, [endpoint]), directory: URL(fileURLWithPath: "/"))
            .run()
        let moved = try #require(result.endpoints.first)
        #expect(moved.passed)
        #expect(moved.url.contains("api_key=REDACTED"))
        #expect(!moved.url.contains("s3cret"))
        #expect(moved.redirects == 1)
        #expect(moved.samples.first?.redirectedTo?.contains("/new?token=REDACTED") == true)
    }

    @Test func onlyRunsTheNamedEndpoints() async throws {
        let raw = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { raw.stop() }
        let endpoints = ["a", "b", "c"].map { EndpointConfig(name: $0, path: "/\($0)") }
        let result = await ProbeRunner(config: config(raw.baseURL, endpoints), directory: URL(fileURLWithPath: "/"))
            .run(only: ["b"])
        #expect(result.endpoints.map(\.name) == ["b"])
        #expect(raw.requestPaths == ["/b"])
    }
}

@Suite("Runner statistics and conditions", .temporaryFolder)
struct RunnerStatisticsTests {
    @Test func percentilesAreExactOnKnownSamples() throws {
        let stats = try #require(LatencyStats(milliseconds: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]))
        #expect(stats.min == 10)
        #expect(stats.max == 100)
        #expect(stats.mean == 55)
        #expect(stats.p50 == 55)
        #expect(abs(stats.p90 - 91) < 1e-9)
        #expect(abs(stats.p95 - 95.5) < 1e-9)
        #expect(abs(stats.p99 - 99.1) < 1e-9)
        let one = try #require(LatencyStats(milliseconds: [7]))
        #expect(one.p50 == 7 && one.p99 == 7)
        #expect(LatencyStats(milliseconds: []) == nil)
    }

    @Test func bodyConditionsReportPointerExpectedAndFound() throws {
        let body = try JSONValue(parsing: Data(#"{"count": 3, "items": [1, 2], "name": "abc"}"#.utf8))
        func check(_ text: String) throws -> String? {
            ExpectationEvaluator.evaluate(try BodyConditionParser.parse(text), on: body)
        }
        #expect(try check("/count > 2") == nil)
        #expect(try check("/count <= 2") == "/count: expected <= 2, found 3")
        #expect(try check("/items length == 2") == nil)
        #expect(try check("/items length > 5") == "/items: expected length > 5, found length 2")
        #expect(try check("/name matches ^a") == nil)
        #expect(try check("/name == abc") == nil)
        #expect(try check("/name != \"abc\"") != nil)
        #expect(try check("/gone exists") == "/gone: expected a value, found nothing")
        #expect(try check("/count not-exists") == "/count: expected nothing, found 3")
    }

    /// `*` stands for every item of an array (the tool's DocC article "Probing a live API"): the condition holds for each, and a failure
    /// names the first item that breaks it and how many do.
    @Test func wildcardBodyConditionsHoldForEveryItem() throws {
        let body = try JSONValue(
            parsing: Data(
                #"{"recipes": [{"title": "a", "rank": 9, "tags": ["x"]}, {"rank": 2, "tags": []}, {"title": "c", "rank": 5, "tags": ["y", "z"]}], "empty": [], "one": {"a": 1}}"#
                    .utf8))
        func check(_ text: String) throws -> String? {
            ExpectationEvaluator.evaluate(try BodyConditionParser.parse(text), on: body)
        }
        #expect(try check("/recipes/*/rank > 1") == nil)
        #expect(try check("/recipes/*/rank > 4") == "/recipes/1/rank: expected > 4, found 2 (1 of 3 items fail)")
        #expect(
            try check("/recipes/*/title exists")
                == "/recipes/1/title: expected a value, found nothing (1 of 3 items fail)")
        #expect(
            try check("/recipes/*/title matches ^[ac]$")
                == "/recipes/1/title: expected a string matching ^[ac]$, found nothing (1 of 3 items fail)")
        #expect(
            try check("/recipes/*/rank matches x")
                == "/recipes/0/rank: expected a string matching x, found 9 (3 of 3 items fail)")
        #expect(
            try check("/recipes/*/title == a") == #"/recipes/1/title: expected "a", found nothing (2 of 3 items fail)"#)
        #expect(try check("/recipes/*/tags/* matches ^[a-z]$") == nil)
        #expect(
            try check("/recipes/*/tags length >= 1")
                == "/recipes/1/tags: expected length >= 1, found length 0 (1 of 3 items fail)")
        #expect(try check("/recipes/*/secret not-exists") == nil)
        #expect(try check("/empty/*/title exists") == nil)
        #expect(try check("/one/*/a exists") == "/one: expected an array for * to range over, found {\"a\":1}")
        #expect(try check("/gone/*/a not-exists") == nil)
        #expect(try check("/gone/*/a exists") == "/gone: expected an array for * to range over, found nothing")
    }
}
