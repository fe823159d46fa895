import Foundation
import HTTPFixtures
import RecipesServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One response from the live server.
struct Reply {
    var status: Int
    var headers: [String: String]
    var data: Data
    var json: JSONValue? { try? JSONValue(parsing: data) }

    func header(_ name: String) -> String? {
        headers.first(where: { $0.key.caseInsensitiveCompare(name) == .orderedSame })?.value
    }
}

extension RecipesServer {
    /// One session for every test: connections to a stopped server fail, new servers get new ports.
    static let session = URLSession(configuration: .ephemeral)

    /// GET `pathAndQuery` (`/api/search?q=x`) from this server with an ephemeral session.
    func get(_ pathAndQuery: String) async throws -> Reply {
        let url = try #require(URL(string: baseURL.absoluteString + pathAndQuery))
        // A connection of its own (`Connection: close`): a server stopped by an earlier test may have had this port,
        // and a kept-alive connection to it left in the shared session once held a request until the suite's time
        // limit (seen once in a full run, two tests stuck together).
        var request = URLRequest(url: url, timeoutInterval: 15)
        request.setValue("close", forHTTPHeaderField: "Connection")
        let (data, response) = try await Self.session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key] = value }
        }
        return Reply(status: http.statusCode, headers: headers, data: data)
    }
}

// Each suite's limit is a guard against a hang, not a timer: some 750 tests share two cores, and a test waits there
// for Swift's cooperative pool while CPU-heavy tests beside it hold it (ARCHITECTURE, "Time limits guard against hangs").
@Suite(.timeLimit(.minutes(10)))
struct RecipesSearchTests {
    @Test func searchReturnsAPageOfThirtyMatchingRecipes() async throws {
        try await RecipesServer.with { server in
            let reply = try await server.get("/api/search?q=chicken")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true)
            let json = try #require(reply.json)
            let count = try #require(json["count"])
            #expect(count == .number("30"))
            guard case .array(let recipes) = json["recipes"] else {
                Issue.record("recipes should be an array")
                return
            }
            #expect(recipes.count == 30)
            for recipe in recipes {
                for key in ["publisher", "f2f_url", "title", "source_url", "recipe_id", "image_url", "publisher_url"] {
                    #expect(recipe[key]?.typeName == "string", "\(key)")
                }
                #expect(["number"].contains(recipe["social_rank"]?.typeName ?? ""))
                #expect(recipe["ingredients"] == nil)
            }
        }
    }

    @Test func everyMatchMentionsTheQuery() async throws {
        try await RecipesServer.with { server in
            let json = try #require(try await server.get("/api/search?q=tacos").json)
            guard case .array(let recipes) = json["recipes"] else { throw CancellationError() }
            #expect(!recipes.isEmpty)
            for recipe in recipes {
                guard case .string(let title) = recipe["title"] else { throw CancellationError() }
                #expect(title.lowercased().contains("tacos"), "\(title)")
            }
        }
    }

    @Test func pagesDoNotOverlapAndEndWithAnEmptyPage() async throws {
        try await RecipesServer.with { server in
            var ids: [JSONValue] = []
            var page = 1
            while true {
                let json = try #require(try await server.get("/api/search?q=&page=\(page)").json)
                guard case .array(let recipes) = json["recipes"] else { throw CancellationError() }
                #expect(json["count"] == .number(String(recipes.count)))
                if recipes.isEmpty { break }
                #expect(recipes.count <= RecipesServer.pageSize)
                ids += recipes.compactMap { $0["recipe_id"] }
                page += 1
            }
            #expect(ids.count >= 300, "a few hundred recipes")
            #expect(Set(ids).count == ids.count)
        }
    }

    @Test func noMatchGivesAnEmptyList() async throws {
        try await RecipesServer.with { server in
            let reply = try await server.get("/api/search?q=zzzznothing")
            #expect(reply.status == 200)
            #expect(String(decoding: reply.data, as: UTF8.self) == #"{"count":0,"recipes":[]}"#)
        }
    }

    @Test func theDataIsTheSameOnEveryRun() async throws {
        let first = try await RecipesServer.with { try await $0.get("/api/search?q=soup&page=1").data }
        let second = try await RecipesServer.with { try await $0.get("/api/search?q=soup&page=1").data }
        #expect(first == second)
        #expect(!first.isEmpty)
    }

    @Test(arguments: [
        ("/api/search", 400, "missing query parameter q"),
        ("/api/search?q=a&page=0", 400, "page must be a positive integer, not \"0\""),
        ("/api/search?q=a&page=x", 400, "page must be a positive integer, not \"x\""),
        ("/api/get", 400, "missing query parameter rId"),
        ("/api/get?rId=1", 404, "no recipe with id \"1\""),
    ])
    func badRequestsGetJSONErrors(path: String, status: Int, message: String) async throws {
        try await RecipesServer.with { server in
            let reply = try await server.get(path)
            #expect(reply.status == status)
            #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(reply.json == .object([("error", .object([("message", .string(message))]))]))
        }
    }

    @Test func unknownRoutesAreJSON404s() async throws {
        try await RecipesServer.with { server in
            let reply = try await server.get("/api/nothing")
            #expect(reply.status == 404)
            #expect(reply.json?.value(at: "/error/message") != nil)
        }
    }
}

@Suite(.timeLimit(.minutes(10)))
struct RecipesGetTests {
    @Test func getReturnsTheRecipeWithIngredients() async throws {
        try await RecipesServer.with { server in
            let search = try #require(try await server.get("/api/search?q=pizza").json)
            guard case .string(let id) = search.value(at: "/recipes/0/recipe_id") else { throw CancellationError() }
            let reply = try await server.get("/api/get?rId=\(id)")
            #expect(reply.status == 200)
            let recipe = try #require(reply.json?["recipe"])
            #expect(recipe["recipe_id"] == .string(id))
            #expect(recipe["title"] == search.value(at: "/recipes/0/title"))
            guard case .array(let ingredients) = recipe["ingredients"] else { throw CancellationError() }
            #expect(ingredients.count >= 4)
        }
    }

    @Test func theFirstRecipeHasTheContractsExampleID() async throws {
        try await RecipesServer.with { server in
            let reply = try await server.get("/api/get?rId=35382")
            #expect(reply.status == 200)
        }
    }

    @Test func healthAnswersOK() async throws {
        try await RecipesServer.with { server in
            let reply = try await server.get("/api/health")
            #expect(reply.json == .object([("status", .string("ok"))]))
        }
    }
}

// Three minutes: 100 requests one after another, each resumed on Swift's cooperative pool, took more than one on a
// loaded machine running the whole suite (three full runs of 2026-11-27 out of six).
@Suite(.timeLimit(.minutes(10)))
struct RecipesServerKnobTests {
    @Test func apiKeyIsCheckedWhenConfigured() async throws {
        try await RecipesServer.with(.init(apiKey: "s3cret")) { server in
            let missing = try await server.get("/api/search?q=a")
            #expect(missing.status == 401)
            #expect(missing.json?.value(at: "/error/message") == .string("missing API key: add key=<your key>"))
            #expect(try await server.get("/api/search?q=a&key=wrong").status == 401)
            #expect(try await server.get("/api/get?rId=35382&key=wrong").status == 401)
            #expect(try await server.get("/api/search?q=a&key=s3cret").status == 200)
            server.knobs.apiKey = nil
            #expect(try await server.get("/api/search?q=a").status == 200)
        }
    }

    // Delays are checked as drawn (and as at least waited for), never against an upper bound of the wall
    // clock: on a loaded machine a response can be late for reasons of its own.
    @Test func fixedLatencyDelaysEveryResponse() async throws {
        try await RecipesServer.with(.init(latency: .fixed(.milliseconds(250)))) { server in
            let clock = ContinuousClock()
            let slow = try await clock.measure { _ = try await server.get("/api/search?q=a") }
            #expect(slow >= .milliseconds(250))
            server.knobs.latency = .none
            _ = try await server.get("/api/search?q=a")
            #expect(server.knobs.delaysDrawn == [.milliseconds(250), .zero])
        }
    }

    @Test func uniformLatencyStaysInItsRange() async throws {
        try await RecipesServer.with(.init(latency: .uniform(.milliseconds(40) ... .milliseconds(80)))) { server in
            let clock = ContinuousClock()
            for _ in 0..<5 {
                let elapsed = try await clock.measure { _ = try await server.get("/api/get?rId=35382") }
                #expect(elapsed >= .milliseconds(40))
            }
            let drawn = server.knobs.delaysDrawn
            #expect(drawn.count == 5)
            #expect(drawn.allSatisfy { (.milliseconds(40) ... .milliseconds(80)).contains($0) }, "\(drawn)")
            #expect(Set(drawn).count > 1, "a uniform draw gave one value five times: \(drawn)")
        }
    }

    @Test func normalLatencyDelaysResponsesAroundItsMean() async throws {
        try await RecipesServer.with(
            .init(latency: .normal(mean: .milliseconds(60), standardDeviation: .milliseconds(10)))
        ) { server in
            let clock = ContinuousClock()
            var searches = Duration.zero
            for _ in 0..<6 { searches += try await clock.measure { _ = try await server.get("/api/search?q=a") } }
            #expect(searches >= .milliseconds(6 * 35))
        }
    }

    @Test func failureRateGives503WithRetryAfter() async throws {
        try await RecipesServer.with(.init(failureRate: 1, retryAfterSeconds: 7)) { server in
            let reply = try await server.get("/api/search?q=a")
            #expect(reply.status == 503)
            #expect(reply.header("Retry-After") == "7")
            #expect(reply.json?.value(at: "/error/message") != nil)
            server.knobs.failureRate = 0.5
            var failures = 0
            for _ in 0..<60 where try await server.get("/api/get?rId=35382").status == 503 { failures += 1 }
            #expect((15...45).contains(failures), "\(failures) of 60")
            server.knobs.failureRate = 0
            #expect(try await server.get("/api/search?q=a").status == 200)
        }
    }

    @Test func theSameSeedGivesTheSameFailures() async throws {
        func pattern(seed: UInt64) async throws -> [Int] {
            try await RecipesServer.with(.init(failureRate: 0.5, seed: seed)) { server in
                var statuses: [Int] = []
                for _ in 0..<20 { statuses.append(try await server.get("/api/get?rId=35382").status) }
                return statuses
            }
        }
        let first = try await pattern(seed: 7)
        #expect(try await pattern(seed: 7) == first)
        #expect(Set(first) == [200, 503])
        #expect(try await pattern(seed: 8) != first)
    }

    @Test func driftedVariantRenamesRetypesAndAddsFields() async throws {
        try await RecipesServer.with { server in
            server.setDrifted(true)
            let recipe = try #require(try await server.get("/api/search?q=soup").json?.value(at: "/recipes/0"))
            #expect(recipe["social_rank"] == nil)
            #expect(recipe["rank"]?.typeName == "number")
            #expect(recipe["recipe_id"]?.typeName == "integer")
            #expect(recipe["cook_time_minutes"]?.typeName == "integer")
            let detail = try #require(try await server.get("/api/get?rId=35382").json?["recipe"])
            #expect(detail["recipe_id"] == .number("35382"))
            server.setDrifted(false)
            let back = try #require(try await server.get("/api/get?rId=35382").json?["recipe"])
            #expect(back["recipe_id"] == .string("35382"))
            #expect(back["cook_time_minutes"] == nil)
            #expect(back["social_rank"] != nil)
        }
    }

    @Test func driftedCanBeSetAtStart() async throws {
        try await RecipesServer.with(.init(isDrifted: true)) { server in
            let reply = try await server.get("/api/get?rId=35382")
            #expect(reply.json?.value(at: "/recipe/rank") != nil)
        }
    }
}

@Suite(.timeLimit(.minutes(10)))
struct RecipesServerLifecycleTests {
    @Test func bindsLoopbackOnASystemPickedPortAndStopsCleanly() async throws {
        let server = try await RecipesServer.start()
        #expect(server.port > 0)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(try await server.get("/api/health").status == 200)
        await server.stop()
        await #expect(throws: (any Error).self) {
            _ = try await server.get("/api/health")
        }
    }

    @Test func severalServersRunSideBySide() async throws {
        let first = try await RecipesServer.start()
        let second = try await RecipesServer.start(.init(isDrifted: true))
        #expect(first.port != second.port)
        #expect(try await first.get("/api/get?rId=35382").json?.value(at: "/recipe/social_rank") != nil)
        #expect(try await second.get("/api/get?rId=35382").json?.value(at: "/recipe/rank") != nil)
        await first.stop()
        await second.stop()
    }
}

/// The in-process server answers a child process even while every thread of the test process's cooperative pool
/// is busy: its tasks run on threads of their own (on a 2-core CI machine, CPU-heavy tests beside it starved it
/// for over 10 s).
@Suite(.timeLimit(.minutes(10)))
struct ServerIsolationTests {
    @Test func theServerAnswersWhileThePoolIsBusy() async throws {
        guard let curl = ["/usr/bin/curl", "/bin/curl"].first(where: FileManager.default.isExecutableFile) else {
            Issue.record("curl is needed (apt-get install curl; .ci/run installs it)")
            return
        }
        try await RecipesServer.with { server in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: curl)
            process.arguments = ["-s", "-o", "/dev/null", "--max-time", "10", "\(server.baseURL)/api/search?q=chicken"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() } }
            // Occupy every thread of the pool until the server has seen the request, for at most 5 s.
            let threads = max(2, ProcessInfo.processInfo.activeProcessorCount)
            let seen = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<threads {
                    group.addTask {
                        let end = ContinuousClock.now + .seconds(5)
                        while ContinuousClock.now < end {
                            if server.knobs.requestsReceived > 0 { return true }
                        }
                        return false
                    }
                }
                var all = true
                for await answer in group { all = all && answer }
                return all
            }
            #expect(seen, "the server's handler did not run while the pool was busy")
        }
    }
}
