import APIProbeTestSupport
import Foundation
import HTTPStubs
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct StubResponseTests {
    @Test func inlineJSONDataAndTextWithStatusAndHeaders() async throws {
        let set = StubSet()
        set.stub(
            .get(base + "/json"),
            response: .json(try JSONValue(parsing: Data(#"{"a": 1}"#.utf8)), status: 201, headers: ["X-Id": "7"]))
        set.stub(.get(base + "/data"), response: .data(Data([0, 1, 2])))
        set.stub(.get(base + "/text"), response: .text("hello", status: 418))
        let session = set.makeSession()
        let (json, jsonResponse) = try await get("/json", on: session)
        #expect(text(json) == #"{"a":1}"#)
        #expect(jsonResponse.statusCode == 201)
        #expect(jsonResponse.value(forHTTPHeaderField: "X-Id") == "7")
        #expect(jsonResponse.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(try await get("/data", on: session).0 == Data([0, 1, 2]))
        let (hello, teapot) = try await get("/text", on: session)
        #expect(text(hello) == "hello")
        #expect(teapot.statusCode == 418)
    }

    @Test func sequencesGiveResponsesInTurnThenRepeatTheLast() async throws {
        let set = StubSet()
        let handle = set.stub(.get(base + "/flaky"), responses: [.status(503), .text("ok")])
        let session = set.makeSession()
        #expect(try await get("/flaky", on: session).1.statusCode == 503)
        #expect(try await get("/flaky", on: session).1.statusCode == 200)
        #expect(try await get("/flaky", on: session).1.statusCode == 200)
        try set.requireCalls(to: handle, count: 3)
        #expect(throws: StubVerificationError.self) { try set.requireCalls(to: handle, count: 2) }
    }

    @Test func latencyDelaysTheResponse() async throws {
        let set = StubSet()
        set.stub(.get(base + "/slow"), response: .text("late").delayed(by: .milliseconds(300)))
        let session = set.makeSession()
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await get("/slow", on: session)
        #expect(clock.now - start >= .milliseconds(300))
    }

    @Test(arguments: [
        (StubFault.timedOut, URLError.Code.timedOut),
        (.notConnectedToInternet, .notConnectedToInternet),
        (.networkConnectionLost, .networkConnectionLost),
        (.cannotFindHost, .cannotFindHost),
    ])
    func faultsAreTheURLErrorsARealClientSees(fault: StubFault, code: URLError.Code) async throws {
        let set = StubSet()
        set.stub(.any, response: .failure(fault))
        let session = set.makeSession()
        let error = await urlError { _ = try await get("/x", on: session) }
        #expect(error?.code == code)
    }

    #if canImport(FoundationNetworking)
    /// Without the opt-in, a 401 challenge fails at once with a message that says why, instead of hanging
    /// in swift-corelibs-foundation's authentication path.
    @Test(.hangGuard) func unauthorizedWithChallengeFailsClearlyOnLinuxUnlessRenamed() async throws {
        let set = StubSet()
        set.stub(.any, response: .status(401, headers: ["www-authenticate": #"Bearer realm="api""#]))
        let error = await urlError { _ = try await get("/secret", on: set.makeSession()) }
        #expect(error?.code == .userAuthenticationRequired)
        #expect(
            error?.localizedDescription.hasPrefix(
                "HTTPStubs: a stubbed 401 with WWW-Authenticate was not delivered: on Linux, swift-corelibs-foundation never completes a task that receives one. Set renamesAuthenticationChallenges = true"
            ) == true)
    }
    #endif

    @Test func headerNamesMergeWithoutRegardToCase() async throws {
        let set = StubSet()
        set.stub(
            .get(base + "/a"),
            response: .json(text: "{}", headers: ["content-type": "application/vnd.api+json"])
                .withHeaders(["x-trace": "3"]))
        let response = StubResponse.json(text: "{}", headers: ["content-type": "application/vnd.api+json"])
        #expect(response.headers == ["content-type": "application/vnd.api+json"])
        #expect(
            StubResponse.text("x").withHeaders(["CONTENT-TYPE": "text/html"]).headers == ["CONTENT-TYPE": "text/html"])
        let (_, served) = try await get("/a", on: set.makeSession())
        #expect(served.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
    }

    @Test func aResponseCanBeComputedFromTheRequest() async throws {
        let set = StubSet()
        let handle = set.stub(.get(base + "/items/{id}")) { request in
            .json(text: #"{"id": "\#(request.url.lastPathComponent)"}"#, status: 200)
        }
        let session = set.makeSession()
        #expect(text(try await get("/items/7", on: session).0) == #"{"id": "7"}"#)
        #expect(text(try await get("/items/abc", on: session).0) == #"{"id": "abc"}"#)
        #expect(set.hitCount(of: handle) == 2)
        #expect(set.log.map(\.status) == [200, 200])
    }

    @Test func oneSpellingPerFault() {
        #expect(StubResponse.text("x").dropped(afterBytes: 1).fault == .dropped(afterBytes: 1))
        #expect(StubResponse.text("x").malformed().fault == .malformed)
    }

    @Test func droppedConnectionAfterPartOfTheBody() async throws {
        let set = StubSet()
        set.stub(.any, response: .text(String(repeating: "x", count: 1_000)).dropped(afterBytes: 100))
        let session = set.makeSession()
        let error = await urlError { _ = try await get("/x", on: session) }
        #expect(error?.code == .networkConnectionLost)
    }

    @Test func droppedConnectionDeliversThePartialBodyToADelegate() async throws {
        let set = StubSet()
        set.stub(.any, response: .text(String(repeating: "x", count: 1_000)).dropped(afterBytes: 100))
        let collector = DataCollector()
        let session = URLSession(configuration: set.sessionConfiguration(), delegate: collector, delegateQueue: nil)
        let task = session.dataTask(with: url("/x"))
        task.resume()
        let (received, error) = await collector.result()
        #expect(received.count == 100)
        #expect((error as? URLError)?.code == .networkConnectionLost)
    }

    @Test func malformedBodyFailsToDecode() async throws {
        struct Item: Decodable { var id: Int }
        let set = StubSet()
        set.stub(.any, response: .json(text: #"{"id": 12345}"#).malformed())
        let session = set.makeSession()
        let (data, response) = try await get("/x", on: session)
        #expect(response.statusCode == 200)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Item.self, from: data) }
    }

    @Test func redirectsAreFollowedWithoutReportingThemToFoundation() async throws {
        let set = StubSet()
        set.stub(.post(base + "/old"), response: .redirect(to: "/new", status: 302))
        set.stub(.get(base + "/new"), response: .text("moved here"))
        let session = set.makeSession()
        var request = URLRequest(url: url("/old"))
        request.httpMethod = "POST"
        request.httpBody = Data("x".utf8)
        let (data, response) = try await send(request, on: session)
        #expect(text(data) == "moved here")
        #expect(response.url?.path == "/new")
        #expect(set.requests.map { "\($0.method) \($0.url.path)" } == ["POST /old", "GET /new"])
    }

    /// The stubs follow the probe's redirect rule: credentials stay on their host, a POST turned GET loses its body
    /// and its Content-Type, and a redirect loop fails after 16 hops.
    @Test func credentialsAreNotCarriedToAnotherHostAndALoopStops() async throws {
        let set = StubSet()
        set.stub(.post(base + "/login"), response: .redirect(to: "/home", status: 303))
        set.stub(.get(base + "/home"), response: .redirect(to: "https://cdn.example.net/assets", status: 302))
        set.stub(.get("https://cdn.example.net/assets"), response: .text("assets"))
        let session = set.makeSession()
        var request = URLRequest(url: url("/login"))
        request.httpMethod = "POST"
        request.httpBody = Data("user=u".utf8)
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer tok-REDIRECT-1", forHTTPHeaderField: "Authorization")
        request.setValue("session=s-REDIRECT-2", forHTTPHeaderField: "Cookie")
        request.setValue("kept", forHTTPHeaderField: "X-Trace")
        let (data, _) = try await send(request, on: session)
        #expect(text(data) == "assets")
        let hops = set.requests
        #expect(
            hops.map { "\($0.method) \($0.url.host ?? "")\($0.url.path)" } == [
                "POST \(URL(string: base)!.host ?? "")/login", "GET \(URL(string: base)!.host ?? "")/home",
                "GET cdn.example.net/assets",
            ])
        #expect(hops[1].headers["Authorization"] == "Bearer tok-REDIRECT-1", "the same host keeps it")
        #expect(hops[1].headers["Content-Type"] == nil && hops[1].body == nil, "303: a GET without the form")
        #expect(hops[2].headers["Authorization"] == nil && hops[2].headers["Cookie"] == nil, "\(hops[2].headers)")
        #expect(hops[2].headers["X-Trace"] == "kept")

        set.stub(.get(base + "/loop"), response: .redirect(to: "/loop", status: 302))
        let error = await urlError { _ = try await get("/loop", on: session) }
        #expect(error?.code == .httpTooManyRedirects)
        #expect(set.requests.count == hops.count + 17, "the request and 16 hops")
    }

    @Test func redirectsCanBeReturnedAsIs() async throws {
        let set = StubSet()
        set.followsRedirects = false
        set.stub(.get(base + "/old"), response: .redirect(to: "/new", status: 301))
        let session = set.makeSession()
        let (_, response) = try await get("/old", on: session)
        #expect(response.statusCode == 301)
        #expect(response.value(forHTTPHeaderField: "Location") == "/new")
    }

    @Test func unauthorizedWithChallengeReachesTheClient() async throws {
        let set = StubSet()
        set.renamesAuthenticationChallenges = true  // Linux only; no effect on Apple platforms
        set.stub(
            .any,
            response: .json(
                text: #"{"error":{"message":"bad key"}}"#, status: 401,
                headers: ["WWW-Authenticate": #"Basic realm="api""#]))
        let session = set.makeSession()
        let (data, response) = try await get("/secret", on: session)
        #expect(response.statusCode == 401)
        #expect(text(data).contains("bad key"))
        #if canImport(FoundationNetworking)
        #expect(response.value(forHTTPHeaderField: "X-WWW-Authenticate") == #"Basic realm="api""#)
        #else
        #expect(response.value(forHTTPHeaderField: "WWW-Authenticate") == #"Basic realm="api""#)
        #endif
    }

    @Test func fixturesAnswerTheirRecordedRequests() async throws {
        let exchange = Exchange(
            request: RecordedRequest(method: "GET", url: base + "/api/search?q=chicken&key=REDACTED"),
            response: RecordedResponse(
                status: 200, headers: ["Content-Type": "application/json", "Content-Length": "999"],
                body: .json(try JSONValue(parsing: Data(#"{"count": 0, "recipes": []}"#.utf8)))),
            metadata: FixtureMetadata(redactions: ["request.query.key"])
        )
        let set = StubSet()
        set.stub(exchange, name: "recipes/search")
        let session = set.makeSession()
        let (data, response) = try await get("/api/search?key=secret-from-env&q=chicken", on: session)
        #expect(text(data) == #"{"count":0,"recipes":[]}"#)
        #expect(response.value(forHTTPHeaderField: "Content-Length") == String(data.count))
        let error = await urlError { _ = try await get("/api/search?q=chicken&key=k&page=2", on: session) }
        #expect(error?.localizedDescription.contains("recipes/search: query has unexpected item page") == true)
        // Every difference is named: a missing item, and each unexpected one.
        let several = await urlError { _ = try await get("/api/search?key=k&page=2&sort=rank&page=3", on: session) }
        #expect(
            several?.localizedDescription.contains(
                "recipes/search: query item q missing; query has unexpected items page, sort") == true,
            "\(several?.localizedDescription ?? "")")
    }

    @Test func requestLogKeepsEveryRequestInOrder() async throws {
        let set = StubSet()
        let handle = set.stub(.get(base + "/a"), response: .text("a"))
        let session = set.makeSession()
        _ = try await get("/a?n=1", on: session)
        _ = await urlError { _ = try await get("/b", on: session) }
        _ = try await get("/a?n=2", on: session)
        #expect(set.log.map(\.stub) == [handle, nil, handle])
        #expect(set.requests(matching: .get(base + "/a").query(["n": "2"])).count == 1)
        #expect(throws: StubVerificationError.self) { try set.requireNoUnmatchedRequests() }
        set.reset()
        #expect(set.requests.isEmpty)
    }
}

/// Collects what a data task delivers to its delegate.
final class DataCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var continuation: CheckedContinuation<(Data, (any Error)?), Never>?
    private var finished: (Data, (any Error)?)?

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        self.data.append(data)
        lock.unlock()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let result = (data, error)
        let waiting = continuation
        continuation = nil
        if waiting == nil { finished = result }
        lock.unlock()
        waiting?.resume(returning: result)
    }

    func result() async -> (Data, (any Error)?) {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let finished {
                lock.unlock()
                continuation.resume(returning: finished)
            } else {
                self.continuation = continuation
                lock.unlock()
            }
        }
    }
}
