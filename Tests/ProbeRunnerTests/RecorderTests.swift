import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Hummingbird
import JSONShape
import NIOCore
import ProbeRunner
import RecipesServer
import Testing

/// Recording from the real recipes server on loopback, into a fresh temporary folder.
@Suite(.hangGuard, .temporaryFolder)
struct RecorderTests {
    static let apiKey = "sk-live-RECORDER-9931"
    static let bearer = "Bearer bearer-SECRET-4711"
    static let headerKey = "xkey-SECRET-2846"
    static let bodyToken = "bodytoken-SECRET-5502"
    static var secrets: [String] { [apiKey, bearer, "bearer-SECRET-4711", headerKey, bodyToken] }

    /// The config of the recipes server: search (with every kind of secret), search.empty, get.
    static func config(_ baseURL: URL, stubs: String = "Stubs") -> ProbeConfig {
        ProbeConfig(
            api: "recipes",
            baseURL: baseURL,
            stubsDirectory: stubs,
            endpoints: [
                EndpointConfig(
                    name: "search", path: "/api/search",
                    query: [QueryItem(name: "q", value: "chicken"), QueryItem(name: "key", value: apiKey)],
                    headers: ["Authorization": bearer, "X-Api-Key": headerKey]),
                EndpointConfig(
                    name: "search.empty", path: "/api/search",
                    query: [QueryItem(name: "q", value: "zzzzqx"), QueryItem(name: "key", value: apiKey)]),
                EndpointConfig(
                    name: "get", path: "/api/get",
                    query: [QueryItem(name: "rId", value: "35382"), QueryItem(name: "key", value: apiKey)]),
            ],
            redactBodyFields: ["session_token"]
        )
    }

    static func withServer<R>(
        _ configuration: RecipesServer.Configuration = RecipesServer.Configuration(apiKey: apiKey),
        _ body: (RecipesServer, URL) async throws -> R
    ) async throws -> R {
        let folder = try TemporaryFolder.make("recorder-test")
        return try await RecipesServer.with(configuration) { server in try await body(server, folder) }
    }

    /// Every regular file below `folder`.
    static func files(in folder: URL) -> [URL: Data] {
        var result: [URL: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[url] = try? Data(contentsOf: url)
            }
        }
        return result
    }

    @Test func recordingWritesOneRedactedFixturePerEndpointAndOneSnapshotPerEndpointGroup() async throws {
        try await Self.withServer { server, folder in
            let recorder = Recorder(config: Self.config(server.baseURL), directory: folder)
            let result = try await recorder.record(snapshots: true)

            #expect(result.endpoints.map(\.outcome) == [.new, .new, .new])
            #expect(result.endpoints.map(\.status) == [200, 200, 200])
            let search = try Exchange.load(from: folder.appendingPathComponent("Stubs/recipes/search.json"))
            #expect(search.request.url.contains("key=REDACTED"))
            #expect(search.request.header("Authorization") == "REDACTED")
            #expect(search.request.header("X-Api-Key") == "REDACTED")
            #expect(search.metadata.source == "record")
            #expect(search.metadata.recordedAt != nil)
            #expect(
                search.metadata.redactions == [
                    "request.query.key", "request.headers.Authorization", "request.headers.X-Api-Key",
                ])
            #expect(search.response.header("Date") == nil)
            guard case .json(let body)? = search.response.body else {
                Issue.record("the search body is not stored as JSON: \(String(describing: search.response.body))")
                return
            }
            #expect(body["count"] == .number("30"))

            let written = Self.files(in: folder).keys.map { String($0.path.dropFirst(folder.path.count + 1)) }.sorted()
            #expect(
                written == [
                    "Snapshots/recipes/get.schema.json", "Snapshots/recipes/search.schema.json",
                    "Stubs/recipes/get.json", "Stubs/recipes/search.empty.json", "Stubs/recipes/search.json",
                ])
            let snapshot = try SchemaSnapshot(
                decoding: Data(contentsOf: folder.appendingPathComponent("Snapshots/recipes/search.schema.json")))
            #expect(snapshot.sampleCount == 2, "search.json and search.empty.json are samples of one endpoint")
            #expect(snapshot.shape.properties["recipes"]?.items?.properties["social_rank"] != nil)
            for (url, data) in Self.files(in: folder) {
                let text = String(decoding: data, as: UTF8.self)
                for secret in Self.secrets {
                    #expect(!text.contains(secret), "\(url.lastPathComponent) holds \(secret)")
                }
            }
        }
    }

    @Test func reRecordingAnUnchangedResponseLeavesEveryFileByteIdentical() async throws {
        try await Self.withServer { server, folder in
            var recorder = Recorder(config: Self.config(server.baseURL), directory: folder)
            recorder.now = { Date(timeIntervalSince1970: 1_795_370_400) }
            _ = try await recorder.record(snapshots: true)
            let before = Self.files(in: folder)
            let stamped = before.values.filter { String(decoding: $0, as: UTF8.self).contains("2026-11-22T18:00:00Z") }
            #expect(stamped.count == 3, "each fixture says when it was recorded, by the recorder's clock")
            recorder.now = { Date(timeIntervalSince1970: 1_795_370_400 + 86_400) }  // a new recordedAt, were it written
            let again = try await recorder.record(snapshots: true)
            #expect(again.endpoints.map(\.outcome) == [.unchanged, .unchanged, .unchanged])
            #expect(again.endpoints.compactMap(\.snapshotOutcome) == [.unchanged, .unchanged, .unchanged])
            #expect(Self.files(in: folder) == before)
        }
    }

    @Test func aDriftedResponseIsRewrittenWithASummaryOfWhatChanged() async throws {
        try await Self.withServer { server, folder in
            let recorder = Recorder(config: Self.config(server.baseURL), directory: folder)
            _ = try await recorder.record()
            server.setDrifted(true)
            let result = try await recorder.record(only: ["search", "get"])

            #expect(result.endpoints.map(\.name) == ["search", "get"])
            #expect(result.endpoints.map(\.outcome) == [.changed, .changed])
            let changes = result.endpoints[0].changes
            #expect(changes.contains("breaking /recipes/*/social_rank removed: was number"), "\(changes)")
            #expect(changes.contains("breaking /recipes/*/recipe_id type-changed: string → integer"), "\(changes)")
            #expect(changes.contains("info /recipes/*/rank added: number"), "\(changes)")
            #expect(changes.contains("30 values changed"), "\(changes)")
            let search = try Exchange.load(from: folder.appendingPathComponent("Stubs/recipes/search.json"))
            guard case .json(let body)? = search.response.body else {
                Issue.record("not JSON")
                return
            }
            #expect(body.value(at: "/recipes/0/rank") != nil)
        }
    }

    @Test func anUnreachableHostIsAFailureThatNamesTheEndpointAndURLAndWritesNothing() async throws {
        let folder = try TemporaryFolder.make("recorder-test")
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let recorder = Recorder(config: Self.config(URL(string: "http://127.0.0.1:1")!), directory: folder)
        let result = try await recorder.record(only: ["search"], snapshots: true)

        #expect(result.hasFailures)
        let endpoint = try #require(result.endpoints.first)
        #expect(endpoint.outcome == .failed)
        let message = try #require(endpoint.message)
        #expect(
            message.hasPrefix("search: cannot reach http://127.0.0.1:1/api/search?q=chicken&key=REDACTED"), "\(message)"
        )
        #expect(!message.contains(Self.apiKey))
        #expect(Self.files(in: folder).isEmpty)
    }

    @Test func anHTTPErrorStatusIsRecordedWithAWarningAndNoSnapshot() async throws {
        try await Self.withServer { server, folder in
            var config = Self.config(server.baseURL)
            config.endpoints = [EndpointConfig(name: "missing", path: "/api/get?rId=nope&key=\(Self.apiKey)")]
            let result = try await Recorder(config: config, directory: folder).record(snapshots: true)

            let endpoint = try #require(result.endpoints.first)
            #expect(endpoint.outcome == .new)
            #expect(endpoint.status == 404)
            #expect(endpoint.warnings == ["HTTP status 404 (recorded as it is)"])
            #expect(endpoint.notes == ["snapshot skipped: status 404 is not a sample"])
            #expect(!result.hasFailures)
            let fixture = try Exchange.load(from: folder.appendingPathComponent("Stubs/recipes/missing.json"))
            #expect(fixture.response.status == 404)
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("Snapshots").path))
        }
    }

    @Test func aNonJSONResponseIsRecordedAsTextAndItsSnapshotSkipped() async throws {
        let router = Router()
        router.get("/hello") { _, _ in "plain words, not JSON" }
        router.get("/session") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.setCookie] = "sid=cookie-SECRET-8080; HttpOnly"
            headers[.contentType] = "application/json"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"session_token": "bodytoken-SECRET-5502"}"#)))
        }
        let server = try await TextServer.start(router: router)
        defer { server.stop() }
        let folder = try TemporaryFolder.make("recorder-test")
        let config = ProbeConfig(
            api: "misc", baseURL: server.baseURL,
            endpoints: [
                EndpointConfig(name: "hello", path: "/hello"), EndpointConfig(name: "session", path: "/session"),
            ],
            redactBodyFields: ["session_token"])
        let result = try await Recorder(config: config, directory: folder).record(snapshots: true)

        #expect(result.endpoints.map(\.outcome) == [.new, .new])
        #expect(result.endpoints[0].notes == ["snapshot skipped: the response is not JSON"])
        let hello = try Exchange.load(from: folder.appendingPathComponent("Stubs/misc/hello.json"))
        #expect(hello.response.body == .text("plain words, not JSON"))
        let session = try Exchange.load(from: folder.appendingPathComponent("Stubs/misc/session.json"))
        #expect(
            session.metadata.redactions.contains("response.headers.Set-Cookie")
                || session.metadata.redactions.contains("response.headers.set-cookie"))
        #expect(session.metadata.redactions.contains("response.body/session_token"))
        let written = Self.files(in: folder)
        #expect(
            written.keys.map(\.lastPathComponent).sorted() == ["hello.json", "session.json", "session.schema.json"])
        for data in written.values {
            let text = String(decoding: data, as: UTF8.self)
            #expect(!text.contains("cookie-SECRET-8080"))
            #expect(!text.contains("bodytoken-SECRET-5502"))
        }
    }

    @Test func anUnwritableFolderIsAnErrorNamingItAndLeavesNoFile() async throws {
        try await Self.withServer { server, folder in
            // A file where the stubs folder should be: no folder can be made below it (even as root).
            try Data("not a folder".utf8).write(to: folder.appendingPathComponent("blocked"))
            let recorder = Recorder(config: Self.config(server.baseURL, stubs: "blocked/Stubs"), directory: folder)
            do {
                _ = try await recorder.record()
                Issue.record("recording into a folder below a file succeeded")
            } catch let error as RecordError {
                #expect(error.message.contains("blocked/Stubs/recipes"), "\(error)")
                #expect(error.message.hasPrefix("search: "), "\(error)")
            }
            #expect(Self.files(in: folder).keys.map(\.lastPathComponent) == ["blocked"])
        }
    }

    /// `record` calls up to `concurrency` endpoints at once, keeps the config's order in its results, and
    /// spaces requests to one host by `requestsPerSecondPerHost`, as `run` does.
    @Test func recordingHonoursConcurrencyAndTheRateLimit() async throws {
        func config(_ baseURL: URL, concurrency: Int, rate: Double?) -> ProbeConfig {
            let endpoints = (0..<6).map { index in
                EndpointConfig(
                    name: "get.n\(index)", path: "/api/get",
                    query: [QueryItem(name: "rId", value: "35382"), QueryItem(name: "key", value: Self.apiKey)])
            }
            return ProbeConfig(
                api: "recipes", baseURL: baseURL, endpoints: endpoints, concurrency: concurrency,
                requestsPerSecondPerHost: rate)
        }
        // Concurrency, seen by the server: how many requests were in its hands at once.
        let gauge = InFlightGauge()
        let router = Router()
        router.get("/slow") { _, _ -> String in
            await gauge.enter()
            try await Task.sleep(for: .milliseconds(300))
            await gauge.leave()
            return "ok"
        }
        let slow = try await TextServer.start(router: router)
        defer { slow.stop() }
        let folder = try TemporaryFolder.make("recorder-test")
        var concurrent = config(slow.baseURL, concurrency: 4, rate: nil)
        for index in concurrent.endpoints.indices { concurrent.endpoints[index].path = "/slow" }
        let result = try await Recorder(config: concurrent, directory: folder).record()
        #expect(result.endpoints.map(\.name) == (0..<6).map { "get.n\($0)" })
        #expect(result.endpoints.allSatisfy { $0.outcome == .new && $0.status == 200 })
        let most = await gauge.most
        #expect(most > 1 && most <= 4, "\(most) requests at once")

        let clock = ContinuousClock()
        try await Self.withServer { server, folder in
            let start = clock.now
            let result = try await Recorder(
                config: config(server.baseURL, concurrency: 6, rate: 10), directory: folder
            ).record()
            let elapsed = clock.now - start
            #expect(result.endpoints.count == 6)
            // Six requests at 10 a second to one host: the last goes at least 500 ms after the first.
            #expect(elapsed >= .milliseconds(480), "\(elapsed)")
        }
    }

    /// Two `Set-Cookie` fields from the live API are two in the fixture (each masked), not one joined by ", ".
    @Test func aRepeatedResponseHeaderIsRecordedOncePerValue() async throws {
        let router = Router()
        router.get("/login") { _, _ -> Response in
            var headers = HTTPFields()
            headers[values: .setCookie] = [
                "sid=first-SECRET-1111; HttpOnly", "pref=second-SECRET-2222; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
            ]
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "{}")))
        }
        let server = try await TextServer.start(router: router)
        defer { server.stop() }
        let folder = try TemporaryFolder.make("recorder-cookies")
        let config = ProbeConfig(
            api: "auth", baseURL: server.baseURL, endpoints: [EndpointConfig(name: "login", path: "/login")])
        let result = try await Recorder(config: config, directory: folder).record()
        #expect(result.endpoints.map(\.outcome) == [.new])
        let file = folder.appendingPathComponent("Stubs/auth/login.json")
        let fixture = try Exchange(decoding: Data(contentsOf: file), file: "login.json")
        let cookies = fixture.response.headers.values(for: "Set-Cookie")
        #expect(cookies.count == 2, "\(fixture.response.headers)")
        let text = try String(decoding: Data(contentsOf: file), as: UTF8.self)
        #expect(!text.contains("SECRET"), "\(text)")
    }

    @Test func anUnknownOnlyNameIsAnErrorListingTheKnownNames() async throws {
        let recorder = Recorder(
            config: Self.config(URL(string: "http://127.0.0.1:1")!), directory: URL(fileURLWithPath: "/nonexistent"))
        do {
            _ = try await recorder.record(only: ["serch"])
            Issue.record("an unknown endpoint was accepted")
        } catch {
            #expect(error.message.contains("--only serch"), "\(error)")
            #expect(error.message.contains("search, search.empty, get"), "\(error)")
        }
    }
}

/// A Hummingbird server on 127.0.0.1 with the routes a test gives it.
struct TextServer {
    let port: Int
    let task: Task<Void, any Error>
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Through the one launcher of the package's servers (quiet logger, its own threads).
    static func start(router: Router<BasicRequestContext>) async throws -> TextServer {
        let (port, task) = try await LoopbackLaunch.start(
            router.buildResponder(), host: "127.0.0.1", port: 0, name: "TextServer")
        return TextServer(port: port, task: task)
    }

    func stop() { task.cancel() }
}

/// The most requests a server held at once.
actor InFlightGauge {
    private var current = 0
    private(set) var most = 0

    func enter() {
        current += 1
        most = max(most, current)
    }

    func leave() { current -= 1 }
}
