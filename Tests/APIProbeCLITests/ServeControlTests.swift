import APIProbeEchoServer
import APIProbeTestSupport
import Foundation
import HTTPFixtures
import HTTPStubs
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `apiprobe serve` steered as a UI test steers it: sequences, scenarios, faults with delays and verification through
/// the admin API and its Swift client; and `--proxy`, recording what the fixtures lack from a live server on loopback.
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder)
struct ServeControlTests {
    /// The built binary serving `folder`, and its base URL.
    static func serve(_ folder: URL, _ extra: [String] = []) async throws -> (RunningCommand, String, String) {
        let command = try RunningCommand(["serve", "--stubs", folder.path] + extra)
        let text = try await command.waitForOutput(containing: "Stop with Ctrl-C.")
        let match = try #require(text.firstMatch(of: /on http:\/\/127\.0\.0\.1:(\d+)/), "\(text)")
        return (command, "http://127.0.0.1:\(match.1)", text)
    }

    static func fixture(_ method: String, _ url: String, status: Int = 200, body: String) -> Data {
        let request = #"{"request": {"method": "\#(method)", "url": "\#(url)"}, "#
        let response = #""response": {"status": \#(status), "headers": {"Content-Type": "application/json"}, "#
        return Data((request + response + #""body": \#(body)}}"#).utf8)
    }

    /// A folder of one API: a job that runs then finishes (a sequence of two fixtures), a search, and an `outage`
    /// scenario in which the search fails.
    static func makeFolder() throws -> URL {
        let folder = try TemporaryFolder.make("serve-control")
        let api = folder.appendingPathComponent("shop")
        try FileManager.default.createDirectory(
            at: api.appendingPathComponent("scenarios/outage"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: api.appendingPathComponent("scenarios/empty"), withIntermediateDirectories: true)
        let origin = "https://shop.example.com"
        try fixture("GET", "\(origin)/jobs/7", body: #"{"state": "running"}"#)
            .write(to: api.appendingPathComponent("job.json"))
        try fixture("GET", "\(origin)/jobs/7", body: #"{"state": "done"}"#)
            .write(to: api.appendingPathComponent("job.2.json"))
        try fixture("GET", "\(origin)/search?q=tea", body: #"{"items": ["green", "black"]}"#)
            .write(to: api.appendingPathComponent("search.json"))
        // One fixture for every recipe, whatever its id and query (`metadata.match`), a little slow.
        var recipe = try Exchange(
            decoding: fixture("GET", "\(origin)/recipes/1", body: #"{"title": "any"}"#), file: "recipe.json")
        recipe.metadata.match = FixtureMatch(path: "/recipes/{id}", query: .ignore)
        recipe.metadata.latency = .milliseconds(200)
        try recipe.encoded().write(to: api.appendingPathComponent("recipe.json"))
        try fixture("GET", "\(origin)/search?q=tea", status: 503, body: #"{"error": "down"}"#)
            .write(to: api.appendingPathComponent("scenarios/outage/search.json"))
        try fixture("GET", "\(origin)/search?q=tea", body: #"{"items": []}"#)
            .write(to: api.appendingPathComponent("scenarios/empty/search.json"))
        return folder
    }

    @Test func sequencesScenariosFaultsAndVerificationThroughTheClient() async throws {
        let folder = try Self.makeFolder()
        let (command, base, banner) = try await Self.serve(folder)
        #expect(banner.hasPrefix("Serving 6 fixtures of \(folder.path) (recorded against https://shop.example.com)"))
        #expect(banner.contains("Scenarios: empty, outage; active: none.\n"), "\(banner)")
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        func get(_ path: String) async throws -> (Int, String) {
            let (data, response) = try await session.data(from: try #require(URL(string: base + path)))
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }
        let client = FixtureServerClient(baseURL: try #require(URL(string: base)), session: session)

        // A sequence: the job runs, then is done, and stays done.
        #expect(try await get("/jobs/7").1.contains("running"))
        #expect(try await get("/jobs/7").1.contains("done"))
        #expect(try await get("/jobs/7").1.contains("done"))
        #expect(try await client.requests().map(\.fixture) == ["shop/job", "shop/job.2", "shop/job.2"])

        // A fixture's own match rule and latency, over HTTP as in process.
        let before = ContinuousClock.now
        #expect(try await get("/recipes/4711?lang=fr").1.contains("any"))
        #expect(ContinuousClock.now - before >= .milliseconds(200))
        #expect(try await client.requests().last?.fixture == "shop/recipe")

        // Scenarios: listed; the search fails only while `outage` is active, and an unknown one names the others.
        #expect(try await get("/search?q=tea").0 == 200)
        #expect(try await client.scenarios().all == ["empty", "outage"])
        try await client.activateScenario("outage")
        #expect(try await client.scenarios().active == "outage")
        #expect(try await get("/search?q=tea").0 == 503)
        #expect(try await get("/jobs/7").1.contains("running"), "a scenario change starts every sequence over")
        let unknown = await #expect(throws: FixtureServerClientError.self) { try await client.activateScenario("nope") }
        #expect(unknown?.status == 404)
        #expect(unknown?.message.contains("no scenario nope in \(folder.path): expected empty, outage") == true)
        try await client.activateScenario(nil)
        #expect(try await get("/search?q=tea").1.contains("green"))

        // Verification: exact and at least, with a path template; a failure says what it found.
        #expect(try await client.requireRequests(path: "/jobs/{id}", count: 4).count == 4)
        try await client.requireRequests(path: "/search", atLeast: 2)
        try await client.requireRequests(path: "/recipes/{id}", count: 1)
        let failed = await #expect(throws: FixtureServerClientError.self) {
            try await client.requireRequests(method: "POST", path: "/orders", count: 1)
        }
        #expect(failed?.status == 417)
        #expect(
            failed?.message.hasPrefix("expected exactly 1 POST /orders, found 0; the latest requests: GET /")
                == true, "\(String(describing: failed))")
        #expect(failed?.message.hasSuffix(", GET /search?q=tea") == true, "\(String(describing: failed))")

        // A fault with a delay on a template; a delay alone answers as usual, later.
        try await client.injectFault(path: "/jobs/{id}", status: 500, times: 1)
        #expect(try await get("/jobs/7").0 == 500)
        try await client.injectFault(path: "/search", delay: .milliseconds(400))
        let start = ContinuousClock.now
        #expect(try await get("/search?q=tea").0 == 200)
        #expect(ContinuousClock.now - start >= .milliseconds(400), "the delay was served")
        let refused = await #expect(throws: FixtureServerClientError.self) {
            try await client.injectFault(path: "/search")  // neither a status nor a delay
        }
        #expect(refused?.status == 400)
        let sources = try await client.requests().suffix(3).map { "\($0.source ?? "-") \($0.status ?? 0)" }
        #expect(sources == ["fixture 200", "fault 500", "fixture 200"])
        // A pending fault outlives a reload of the folder, and a reset clears it.
        try await client.injectFault(path: "/search", status: 502, times: 2)
        #expect(try await get("/search?q=tea").0 == 502)
        try Self.fixture("GET", "https://shop.example.com/extra", status: 200, body: "{}")
            .write(to: folder.appendingPathComponent("shop/extra.json"))
        // Read now, or by the look every 200 ms when this process was slower than it (in CI, a test process held
        // for seconds by the tests beside it): then this reload finds nothing new. Either way it names nothing else,
        // and the new fixture answers.
        let reloaded = try await client.reload()
        #expect(reloaded.allSatisfy { $0 == "shop/extra" }, "\(reloaded)")
        #expect(try await get("/extra").0 == 200)
        #expect(try await get("/search?q=tea").0 == 502, "the fault's second time, after the reload")
        #expect(try await get("/search?q=tea").0 == 200)

        // A scenario's fixture edited on disk is served from the next request on, the log kept.
        let logged = try await client.requests().count
        try Self.fixture("GET", "https://shop.example.com/search?q=tea", status: 504, body: #"{"error": "slow"}"#)
            .write(to: folder.appendingPathComponent("shop/scenarios/outage/search.json"))
        try await client.activateScenario("outage")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await get("/search?q=tea").0 == 504)
        #expect(try await client.requests().count == logged + 1)

        // A reset goes back to the scenario of the start and empties the log.
        try await client.activateScenario("empty")
        try await client.injectFault(path: "/search", status: 502, times: 1)
        try await client.reset()
        #expect(try await client.scenarios().active == nil)
        #expect(try await client.requests().isEmpty)
        #expect(try await get("/search?q=tea").0 == 200, "the reset cleared the pending fault")
        #expect(try await command.stop() == 0)
        #expect(command.standardError.contains("apiprobe serve: reloaded 7 fixtures of \(folder.path)"))

        // Started in a scenario; an unknown one at the start is bad input naming those there are.
        let (started, startedBase, startedBanner) = try await Self.serve(folder, ["--scenario", "empty"])
        #expect(startedBanner.contains("active: empty."))
        let (_, response) = try await session.data(from: try #require(URL(string: startedBase + "/search?q=tea")))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try await started.stop() == 0)
        let bad = try await CommandLineRunner.run(["serve", "--stubs", folder.path, "--scenario", "nope"])
        #expect(bad.status == 2, "\(bad)")
        #expect(bad.standardError.contains("--scenario nope: expected one of empty, outage"), "\(bad)")
    }

    /// `--proxy`: a miss goes to the live server (an echo server on loopback that repeats credentials back and hands
    /// out its own), whose answer the client receives as it came; the recording is a fixture with every credential
    /// masked, which answers the same request from then on, with the live server gone.
    @Test func aMissIsAnsweredByTheLiveAPIAndRecordedRedacted() async throws {
        let folder = try TemporaryFolder.make("serve-proxy")
        let stubs = folder.appendingPathComponent("Stubs/echo")
        let token = "tok-PROXY-CLIENT-5521"
        let serverToken = "srv-PROXY-REFRESH-8830"
        let serverCookie = "cookie-PROXY-SESSION-4410"
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: URL(string: "http://placeholder/json/items?api_key=qk-PROXY-QUERY-7731&page=2")!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")

        let command: RunningCommand
        let base: String
        (command, base) = try await EchoServer.with(serverToken: serverToken, serverCookie: serverCookie) { live in
            let (command, base, banner) = try await Self.serve(stubs, ["--proxy", live.baseURL.absoluteString])
            #expect(banner.hasPrefix("Serving 0 fixtures of \(stubs.path) (recorded against \(live.baseURL))"))
            request.url = URL(string: base + "/json/items?api_key=qk-PROXY-QUERY-7731&page=2")
            let (data, response) = try await session.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            // The client receives the live answer as it came (the echo of its own credential included).
            #expect(String(decoding: data, as: UTF8.self).contains(serverToken))
            return (command, base)
        }

        // The recording: one file, every credential masked (by name, and by value where the echo repeated it).
        let names = FixtureStore(directory: stubs).names()
        #expect(names == ["get-json-items"])
        let text = try String(contentsOf: stubs.appendingPathComponent("get-json-items.json"), encoding: .utf8)
        for secret in [token, serverToken, serverCookie, "qk-PROXY-QUERY-7731"] {
            #expect(!text.contains(secret), "\(secret) in the recording:\n\(text)")
        }
        let recorded = try Exchange.load(from: stubs.appendingPathComponent("get-json-items.json"))
        #expect(recorded.metadata.source == "serve --proxy")
        #expect(recorded.request.url.hasSuffix("/json/items?api_key=REDACTED&page=2"), "\(recorded.request.url)")

        // The live server is gone: the same request (another key) is answered from the recording; another is a 502.
        request.url = URL(string: base + "/json/items?api_key=other-key-0001&page=2")
        let (again, replayed) = try await session.data(for: request)
        #expect((replayed as? HTTPURLResponse)?.statusCode == 200)
        #expect(!String(decoding: again, as: UTF8.self).contains(serverToken))
        let (failedBody, failed) = try await session.data(from: try #require(URL(string: base + "/json/other")))
        #expect((failed as? HTTPURLResponse)?.statusCode == 502)
        #expect(
            String(decoding: failedBody, as: UTF8.self).contains("the live API did not answer: cannot reach"),
            "\(String(decoding: failedBody, as: UTF8.self))")
        #expect(FixtureStore(directory: stubs).names() == ["get-json-items"], "nothing recorded for a 502")

        let client = FixtureServerClient(baseURL: try #require(URL(string: base)), session: session)
        let log = try await client.requests()
        #expect(
            log.map { "\($0.source ?? "-") \($0.status ?? 0) \($0.fixture ?? "-")" } == [
                "proxy 200 get-json-items",
                "fixture 200 get-json-items", "proxy 502 -",
            ])
        #expect(try await command.stop() == 0, "\(command.outcome)")
        for secret in [token, serverToken, serverCookie, "qk-PROXY-QUERY-7731"] {
            #expect(!command.standardError.contains(secret), "\(secret) on the console")
            #expect(!command.standardOutput.contains(secret), "\(secret) on the console")
        }
        #expect(command.standardError.contains("recorded as get-json-items"), "\(command.standardError)")

        // Credentials in --proxy would be printed with it: refused, and not echoed.
        let withCredentials = try await CommandLineRunner.run([
            "serve", "--stubs", stubs.path, "--proxy", "https://admin:pw-PROXY-9921@api.example.com",
        ])
        #expect(withCredentials.status == 2, "\(withCredentials)")
        #expect(withCredentials.standardError.contains("--proxy: expected a scheme and host without credentials"))
        #expect(!withCredentials.standardError.contains("pw-PROXY-9921"))
    }
}
