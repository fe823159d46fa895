import APIProbeTestSupport
import Foundation
import HTTPFixtures
import HTTPStubs
import RecipesAPI
import RecipesServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `apiprobe serve` driven as another process would drive it: the built binary on loopback, asked by URLSession and
/// by curl, stopped by SIGTERM.
@Suite(.tags(.commandLine, .outsideTools), .hangGuard, .temporaryFolder)
struct ServeCommandTests {
    static let stubs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Stubs/recipes")

    @Test func fixturesAreServedAndAMissNamesTheClosestOnes() async throws {
        let command = try RunningCommand(["serve", "--stubs", Self.stubs.path])
        let text = try await command.waitForOutput(containing: "Stop with Ctrl-C.")
        let match = try #require(text.firstMatch(of: /on http:\/\/127\.0\.0\.1:(\d+)/), "\(text)")
        #expect(
            text.hasPrefix("Serving 6 fixtures of \(Self.stubs.path) (recorded against https://recipes.example.com)"))
        let base = "http://127.0.0.1:\(match.1)"

        // URLSession, as an app under UI test asks it.
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(from: try #require(URL(string: base + "/api/search?q=chicken")))
        let fixture = try Exchange.load(from: Self.stubs.appendingPathComponent("search.json"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data == fixture.response.body?.data, "the recorded body, byte for byte")
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length") == String(data.count))

        // The sample app's own client, pointed at the server as a UI test points the app (its launch environment).
        let app = RecipesClient(baseURL: try #require(URL(string: base)), configuration: .ephemeral)
        let page = try await app.search("chicken")
        #expect(page.recipes.count == 30)
        #expect(try await app.recipe(id: "35382").title == "Easy Banana Bread")

        // The recorded 404 is served as recorded; a request no fixture answers is a 404 that says why.
        let (_, notFound) = try await session.data(from: try #require(URL(string: base + "/api/get?rId=1")))
        #expect((notFound as? HTTPURLResponse)?.statusCode == 404)
        let (missBody, miss) = try await session.data(from: try #require(URL(string: base + "/api/search?q=beef")))
        #expect((miss as? HTTPURLResponse)?.statusCode == 404)
        let diagnosis = try #require(try JSONSerialization.jsonObject(with: missBody) as? [String: String])
        #expect(diagnosis["error"] == "no fixture matches the request")
        #expect(diagnosis["request"] == "GET /api/search?q=beef")
        #expect(
            diagnosis["diagnostics"]?.contains("search.page2: query item q differs: expected chicken, got beef")
                == true,
            "\(diagnosis)")

        // A credential the client sends in its query is not echoed into the answer or the log.
        let (leakBody, _) = try await session.data(
            from: try #require(URL(string: base + "/api/search?q=beef&api_key=tok-SERVE-41")))
        #expect(!String(decoding: leakBody, as: UTF8.self).contains("tok-SERVE-41"))
        #expect(String(decoding: leakBody, as: UTF8.self).contains("api_key=REDACTED"))

        // curl, as a teammate's shell asks it.
        if let curl = ["/usr/bin/curl", "/usr/local/bin/curl"].first(where: FileManager.default.isExecutableFile) {
            let result = try await CommandLineRunner.runProcess(
                URL(fileURLWithPath: curl), ["-s", "-w", "\n%{http_code}", base + "/api/get?rId=35382"])
            #expect(result.standardOutput.hasSuffix("\n200"), "\(result)")
            #expect(result.standardOutput.contains("\"recipe_id\":\"35382\""), "\(result)")
        } else {
            TestEnvironment.recordMissing("curl is not installed (apt-get install -y curl; .ci/run does)")
        }

        #expect(try await command.stop(SIGTERM) == 0)
        #expect(command.standardError.contains("apiprobe serve: 404 GET /api/search?q=beef: no fixture matches"))
        #expect(!command.standardError.contains("tok-SERVE-41"), "\(command.standardError)")
        #expect(command.standardOutput.hasSuffix("Stopped (SIGTERM).\n"), "\(command.standardOutput)")
    }

    /// A fixture's repeated `Set-Cookie` reaches a client as two fields (curl sees both lines), not one joined by ", "
    /// (URLSession would join them itself; a browser or curl would not).
    @Test func aRepeatedHeaderIsServedOncePerValue() async throws {
        guard let curl = ["/usr/bin/curl", "/usr/local/bin/curl"].first(where: FileManager.default.isExecutableFile)
        else {
            TestEnvironment.recordMissing("curl is not installed (apt-get install -y curl; .ci/run does)")
            return
        }
        let folder = try TemporaryFolder.make("serve-cookies")
        let fixture = #"""
            {"request": {"method": "GET", "url": "https://api.example.com/login"},
             "response": {"status": 200, "headers": {"Content-Type": "application/json",
               "Set-Cookie": ["sid=one; HttpOnly", "pref=two; Expires=Wed, 21 Oct 2026 07:28:00 GMT"]},
               "body": {}}}
            """#
        try Data(fixture.utf8).write(to: folder.appendingPathComponent("login.json"))
        let command = try RunningCommand(["serve", "--stubs", folder.path])
        let text = try await command.waitForOutput(containing: "Stop with Ctrl-C.")
        let match = try #require(text.firstMatch(of: /on http:\/\/127\.0\.0\.1:(\d+)/), "\(text)")
        let result = try await CommandLineRunner.runProcess(
            URL(fileURLWithPath: curl), ["-s", "-D", "-", "-o", "/dev/null", "http://127.0.0.1:\(match.1)/login"])
        let lines = result.standardOutput.split(separator: "\r\n").filter { $0.lowercased().hasPrefix("set-cookie:") }
        #expect(
            lines == ["Set-Cookie: sid=one; HttpOnly", "Set-Cookie: pref=two; Expires=Wed, 21 Oct 2026 07:28:00 GMT"],
            "\(result)")
        #expect(try await command.stop(SIGTERM) == 0)
    }

    /// A fixture edited while the server runs is served from the next request on; a broken edit keeps the last good
    /// fixtures and says why, naming the file and the place.
    @Test func aChangedFixtureIsServedWithoutARestart() async throws {
        let folder = try TemporaryFolder.make("serve-reload")
        let stubs = folder.appendingPathComponent("recipes")
        try FileManager.default.copyItem(at: Self.stubs, to: stubs)
        let fixture = stubs.appendingPathComponent("get.json")
        let command = try RunningCommand(["serve", "--stubs", stubs.path])
        let text = try await command.waitForOutput(containing: "Stop with Ctrl-C.")
        let match = try #require(text.firstMatch(of: /on http:\/\/127\.0\.0\.1:(\d+)/), "\(text)")
        let url = try #require(URL(string: "http://127.0.0.1:\(match.1)/api/get?rId=35382"))
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        func title() async throws -> String {
            let (data, _) = try await session.data(from: url)
            let body = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            return (body?["recipe"] as? [String: Any])?["title"] as? String ?? "?"
        }
        #expect(try await title() == "Easy Banana Bread")

        let original = try String(contentsOf: fixture, encoding: .utf8)
        try original.replacingOccurrences(of: "Easy Banana Bread", with: "Easier Banana Bread")
            .write(to: fixture, atomically: true, encoding: .utf8)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await title() == "Easier Banana Bread")

        try Data(#"{"request": []}"#.utf8).write(to: fixture)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await title() == "Easier Banana Bread", "the last good fixtures")
        // A reset asked for while the folder does not load says so and resets nothing.
        let client = FixtureServerClient(
            baseURL: try #require(URL(string: "http://127.0.0.1:\(match.1)")), session: session)
        do {
            try await client.reset()
            Issue.record("a reset of a broken folder answered as if it had worked")
        } catch let error as FixtureServerClientError {
            #expect(error.status == 409)
            #expect(error.message.contains("get.json: /request: expected an object, found array of 0"), "\(error)")
        }
        // The log outlives reloads (a UI test verifies what its app sent while a fixture was being edited).
        #expect(try await client.requests().map(\.fixture) == ["get", "get", "get"], "nothing reset")
        #expect(try await command.stop() == 0)
        #expect(command.standardError.contains("apiprobe serve: reloaded 6 fixtures of \(stubs.path)"))
        #expect(
            command.standardError.contains(
                "get.json: /request: expected an object, found array of 0 (still serving the fixtures read before)"),
            "\(command.standardError)")
    }

    /// What a UI test does: "the next search fails with 503", then checks what the app sent, then starts over.
    @Test func theAdminAPIInjectsAFaultListsTheRequestsAndResets() async throws {
        let command = try RunningCommand(["serve", "--stubs", Self.stubs.path])
        let text = try await command.waitForOutput(containing: "Stop with Ctrl-C.")
        let match = try #require(text.firstMatch(of: /on http:\/\/127\.0\.0\.1:(\d+)/), "\(text)")
        let base = "http://127.0.0.1:\(match.1)"
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        func send(_ method: String, _ path: String, _ body: String? = nil) async throws -> (Int, [String: Any]) {
            var request = URLRequest(url: try #require(URL(string: base + path)))
            request.httpMethod = method
            request.httpBody = body.map { Data($0.utf8) }
            let (data, response) = try await session.data(for: request)
            return (
                (response as? HTTPURLResponse)?.statusCode ?? 0,
                (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
            )
        }

        let (created, _) = try await send(
            "POST", "/__apiprobe/faults", #"{"path": "/api/search", "status": 503, "times": 1}"#)
        #expect(created == 201)
        #expect(try await send("GET", "/api/search?q=chicken").0 == 503)
        #expect(try await send("GET", "/api/search?q=chicken").0 == 200, "one time only")
        #expect(try await send("GET", "/api/search?q=beef").0 == 404)
        let (_, log) = try await send("GET", "/__apiprobe/requests")
        let requests = try #require(log["requests"] as? [[String: Any]])
        #expect(
            requests.map { $0["url"] as? String } == [
                "/api/search?q=chicken", "/api/search?q=chicken", "/api/search?q=beef",
            ])
        #expect(requests.map { $0["fixture"] as? String } == [nil, "search", nil])
        #expect(requests.map { $0["status"] as? Int } == [503, 200, nil])

        let (bad, problem) = try await send("POST", "/__apiprobe/faults", #"{"status": 503}"#)
        #expect(bad == 400)
        #expect((problem["error"] as? String)?.hasPrefix("expected a JSON object") == true)
        #expect(try await send("POST", "/__apiprobe/reset").0 == 200)
        let (_, empty) = try await send("GET", "/__apiprobe/requests")
        #expect((empty["requests"] as? [Any])?.isEmpty == true)
        #expect(try await send("GET", "/__apiprobe/nothing").0 == 404)

        // The same through the Swift client a UI test uses (HTTPStubs, Foundation only).
        let client = FixtureServerClient(baseURL: try #require(URL(string: base)), session: session)
        try await client.injectFault(path: "/api/get", status: 500, times: 2)
        #expect(try await send("GET", "/api/get?rId=35382").0 == 500)
        #expect(try await send("GET", "/api/get?rId=35382").0 == 500)
        #expect(try await send("GET", "/api/get?rId=35382").0 == 200)
        let served = try await client.requests()
        #expect(served.map(\.status) == [500, 500, 200])
        #expect(
            served.last
                == ServedRequest(
                    method: "GET", url: "/api/get?rId=35382", fixture: "get", status: 200, source: "fixture"))
        await #expect(throws: FixtureServerClientError.self) {
            try await client.injectFault(path: "no-slash", status: 503)
        }
        try await client.reset()
        #expect(try await client.requests().isEmpty)
        #expect(try await command.stop() == 0)
    }

    @Test func aFolderWithoutFixturesAPortInUseAndABadFixtureAreBadInput() async throws {
        let empty = try TemporaryFolder.make("serve-empty")
        let none = try await CommandLineRunner.run(["serve", "--stubs", empty.path])
        #expect(none.status == 2, "\(none)")
        #expect(none.standardError.hasPrefix("Error: \(empty.path): expected fixtures (*.json), found none"), "\(none)")

        let bad = empty.appendingPathComponent("api")
        try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: true)
        try Data(#"{"request": 3}"#.utf8).write(to: bad.appendingPathComponent("a.json"))
        let broken = try await CommandLineRunner.run(["serve", "--stubs", empty.path])
        #expect(broken.status == 2, "\(broken)")
        #expect(broken.standardError.contains("api/a.json: /request: expected an object, found integer 3"), "\(broken)")

        try await RecipesServer.with { server in
            let taken = try await CommandLineRunner.run([
                "serve", "--stubs", Self.stubs.path, "--port", "\(server.port)",
            ])
            #expect(taken.status == 2, "\(taken)")
            #expect(taken.standardError.contains("the port is already in use"), "\(taken)")
        }
    }

    /// A description beside (or instead of) the fixtures: a request no fixture matches is answered from the
    /// operation's own example (an `examples` entry through `components/examples`, a schema's `example`), or a 404
    /// that says the operation has none; with `--validate-requests`, a request that does not fit is a 400 naming
    /// each problem's JSON Pointer, by the rule of `openapi check`.
    @Test func aDescriptionAnswersFromItsExamplesAndJudgesRequests() async throws {
        let directory = try TemporaryFolder.make("serve-spec")
        let spec = """
            openapi: 3.0.3
            info: {title: pets, version: '1'}
            servers: [{url: 'https://pets.example.com/v1'}]
            paths:
              /pets:
                get:
                  parameters: [{name: limit, in: query, schema: {type: integer}}]
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: {type: array, items: {$ref: '#/components/schemas/Pet'}}
                          examples: {two: {$ref: '#/components/examples/TwoPets'}}
                post:
                  requestBody:
                    required: true
                    content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
                  responses: {'201': {description: made}}
              /pets/{id}:
                get:
                  parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
                  responses:
                    '200':
                      description: ok
                      content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
              /owners:
                get:
                  responses: {'200': {description: ok, content: {application/json: {schema: {type: array}}}}}
            components:
              schemas:
                Pet:
                  type: object
                  required: [id, name]
                  properties: {id: {type: integer}, name: {type: string}}
                  example: {id: 7, name: Rex}
              examples:
                TwoPets: {value: [{id: 1, name: Tom}, {id: 2, name: Kit}]}
            """
        try Data(spec.utf8).write(to: directory.appendingPathComponent("pets.yaml"))
        // One fixture, for /pets/1: it wins over the example.
        let stubs = directory.appendingPathComponent("Stubs/pets")
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
        let fixture =
            ##"{"request": {"method": "GET", "url": "https://pets.example.com/v1/pets/1"}, "response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": {"id": 1, "name": "Recorded"}}}"##
        try Data(fixture.utf8).write(to: stubs.appendingPathComponent("pet.json"))

        let command = try RunningCommand(
            ["serve", "--stubs", "Stubs/pets", "--spec", "pets.yaml", "--validate-requests"], in: directory)
        let text = try await command.waitForOutput(containing: "Stop with Ctrl-C.")
        #expect(
            text.hasPrefix(
                "Serving 1 fixture of Stubs/pets and the examples of pets.yaml (4 operations, requests validated) (recorded against https://pets.example.com)"
            ), "\(text)")
        let port = try #require(text.firstMatch(of: /on http:\/\/127\.0\.0\.1:(\d+)/)).1
        let base = "http://127.0.0.1:\(port)/v1"
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        func get(_ path: String, method: String = "GET", body: String? = nil) async throws -> (Int, Any, String?) {
            var request = URLRequest(url: try #require(URL(string: base + path)))
            request.httpMethod = method
            if let body {
                request.httpBody = Data(body.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let (data, response) = try await session.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            return (
                http.statusCode, try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed),
                http.value(forHTTPHeaderField: "X-Apiprobe-Example")
            )
        }

        let (recordedStatus, recorded, recordedSource) = try await get("/pets/1")
        #expect(recordedStatus == 200 && (recorded as? [String: Any])?["name"] as? String == "Recorded")
        #expect(recordedSource == nil)
        let (listStatus, list, listSource) = try await get("/pets?limit=2")
        #expect(listStatus == 200)
        #expect((list as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Tom", "Kit"])
        #expect(listSource == "/components/examples/TwoPets/value")
        let (petStatus, pet, petSource) = try await get("/pets/7")
        #expect(petStatus == 200 && (pet as? [String: Any])?["name"] as? String == "Rex")
        #expect(petSource == "/components/schemas/Pet/example")

        let (ownersStatus, owners, _) = try await get("/owners")
        #expect(ownersStatus == 404)
        #expect(
            (owners as? [String: Any])?["error"] as? String
                == "no fixture matches the request, and GET /owners has no example of a success response in pets.yaml")
        let (nowhereStatus, nowhere, _) = try await get("/cats")
        #expect(nowhereStatus == 404)
        #expect(
            (nowhere as? [String: Any])?["error"] as? String
                == "no fixture matches the request, and no operation of pets.yaml takes it")

        // Requests that do not fit: a query value of the wrong type (with a credential, never echoed), a body
        // without a required property.
        let (badStatus, bad, _) = try await get("/pets?limit=two&api_key=tok-SPEC-93")
        #expect(badStatus == 400)
        let problems = try #require((bad as? [String: Any])?["problems"] as? [[String: String]])
        #expect(problems.map { $0["pointer"] } == ["/query/limit", "/query/api_key"], "\(problems)")
        #expect(!"\(bad)".contains("tok-SPEC-93"))
        let (postStatus, post, _) = try await get("/pets", method: "POST", body: #"{"id": 3}"#)
        #expect(postStatus == 400)
        let postProblems = try #require((post as? [String: Any])?["problems"] as? [[String: String]])
        #expect(postProblems.map { $0["pointer"] } == ["/body/name"], "\(postProblems)")
        #expect((post as? [String: Any])?["operation"] as? String == "POST /pets")
        let (madeStatus, _, _) = try await get("/pets", method: "POST", body: #"{"id": 3, "name": "Ada"}"#)
        #expect(madeStatus == 404, "a request that fits, with no fixture and no example, is still a miss")

        #expect(try await command.stop(SIGTERM) == 0)
        #expect(command.standardError.contains("/query/limit: parameter: query parameter \"limit\": expected integer"))
        #expect(!command.standardError.contains("tok-SPEC-93"), "\(command.standardError)")
    }

    @Test func aBadDescriptionOrValidationWithoutOneIsBadInput() async throws {
        let directory = try TemporaryFolder.make("serve-spec-bad")
        try Data("openapi: 3.0.3\npaths: [1, 2\n".utf8).write(to: directory.appendingPathComponent("broken.yaml"))
        let broken = try await CommandLineRunner.run(["serve", "--spec", "broken.yaml"], in: directory)
        #expect(broken.status == 2, "\(broken)")
        #expect(broken.standardError.contains("broken.yaml:3:1: expected a YAML or JSON document"), "\(broken)")
        let alone = try await CommandLineRunner.run(["serve", "--validate-requests"], in: directory)
        #expect(alone.status == 2, "\(alone)")
        #expect(alone.standardError.contains("--validate-requests: expected --spec"), "\(alone)")
    }

    /// A hostile client on loopback (`Fixtures/hostile_client.py`): a 200 KB header and 3,000 header fields are a
    /// 400, an endless body a 413 once 16 MiB are read, and 2,000 idle connections leave the server answering;
    /// it is still there afterwards. (Idle connections are closed after `LoopbackLaunch.idleTimeout`.)
    @Test func aHostileClientIsBoundedAndNeverStopsTheServer() async throws {
        guard let python = RealCollectionTests.python else {
            TestEnvironment.recordMissing("the tests' Python (.build/venv-openapi) is missing: run .ci/run")
            return
        }
        let command = try RunningCommand(["serve", "--stubs", Self.stubs.path])
        let text = try await command.waitForOutput(containing: "Stop with Ctrl-C.")
        let port = try #require(text.firstMatch(of: /on http:\/\/127\.0\.0\.1:(\d+)/)).1
        let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/hostile_client.py")
        let result = try await CommandLineRunner.runProcess(
            python, [client.path, String(port), "/api/search?q=chicken"])
        #expect(result.status == 0, "\(result)")
        let answers = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(answers["hugeHeader"] as? String == "HTTP/1.1 400 Bad Request", "\(answers)")
        #expect(answers["manyHeaders"] as? String == "HTTP/1.1 400 Bad Request", "\(answers)")
        #expect(answers["endlessBody"] as? String == "HTTP/1.1 413 Payload Too Large", "\(answers)")
        #expect((answers["endlessBodySentMiB"] as? Int ?? 0) >= 16, "\(answers)")
        #expect((answers["opened"] as? Int ?? 0) >= 900, "\(answers)")
        #expect(answers["connections"] as? String == "HTTP/1.1 200 OK", "\(answers)")
        #expect(answers["after"] as? String == "HTTP/1.1 200 OK", "\(answers)")
        #expect(try await command.stop(SIGTERM) == 0)
    }
}
