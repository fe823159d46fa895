import APIProbeTestSupport
import Foundation
import HTTPFixtures
import HTTPStubs
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct StubMatchingTests {
    @Test(arguments: [
        ("/api/recipes/42", true),
        ("/api/recipes/", false),
        ("/api/recipes/42/x", false),
    ])
    func pathTemplatesMatchOneSegmentPerPlaceholder(path: String, matches: Bool) async throws {
        let set = StubSet()
        set.stub(.get(base + "/api/recipes/{id}"), response: .text("recipe"))
        let session = set.makeSession()
        let error = await urlError { _ = try await get(path, on: session) }
        #expect((error == nil) == matches)
    }

    /// A server's requests (`apiprobe serve`) take their parts from the origin, read once, and the target's text;
    /// every target gives the request the URL's own parse gives, or is left to that parse (`nil`).
    @Test func aServersRequestHasTheSamePartsAsItsURLs() throws {
        let targets = [
            "/items/1", "/", "/items/1?page=2&q=a%20b", "/a%20b", "/caf%C3%A9", "/Caf%c3%a9/x", "/100%", "/a%2",
            "/a%20b%zz", "/a b", "//evil.example/x", "/x#fragment", "/\u{fc}", "/a?b?c", "/%2e%2e/etc", "/a;b=c,d",
            "/~user/(x)!*'+$&@:", "items", "?q=1", "/%41%42", "/a?x=%zz",
        ]
        var fast = 0
        for originText in [
            "http://localhost", "https://API.Example.com:8443/v1", "http://127.0.0.1:8080", "http://h/b%20p",
        ] {
            let originURL = try #require(URL(string: originText))
            let origin = try #require(StubRequest.Origin(originURL))
            for target in targets {
                guard let url = URL(string: originText + target) else { continue }
                let headers: HeaderFields = ["Accept": "application/json"]
                let parsed = StubRequest(method: "get", url: url, headers: headers, body: Data("b".utf8))
                guard
                    let served = StubRequest(
                        method: "get", origin: origin, target: target, headers: headers, body: Data("b".utf8))
                else { continue }
                fast += 1
                #expect(served == parsed, "\(originText) + \(target)")
                #expect(served.hashValue == parsed.hashValue, "\(originText) + \(target)")
                #expect(served.path == parsed.path && served.queryItems == parsed.queryItems)
                // The URL, parsed only when read, is the one the server's origin and the target make.
                #expect(served.url == url, "\(originText) + \(target)")
            }
        }
        // The plain targets of each origin take the fast way (so the comparison above is not empty).
        #expect(fast >= 4 * 12)
        #expect(StubRequest.Origin(URL(string: "http://h/?q=1")!) == nil)
    }

    /// A stub compares the scheme, host and port its matcher fixes as values; a condition given another test
    /// (`evaluate` set) no longer fixes them, and its own test decides.
    @Test func aConditionGivenAnotherTestNoLongerFixesItsValue() async throws {
        let set = StubSet()
        var anyScheme = try #require(RequestMatcher().scheme("http").conditions.first)
        anyScheme.evaluate = { _ in nil }
        var anyHost = try #require(RequestMatcher().host("other.example", port: 81).conditions.first)
        anyHost.evaluate = { _ in nil }
        set.stub(RequestMatcher().method("GET").adding(anyScheme).adding(anyHost).path("/x"), response: .text("any"))
        // Fixed values still compare: another host, another port or another scheme is refused.
        set.stub(.get("https://api.example.com:8443/y"), response: .text("y"))
        let session = set.makeSession()
        #expect(text(try await get("/x", on: session).0) == "any")
        #expect(await urlError { _ = try await get("/y", on: session) } != nil)
        let (body, _) = try await send(URLRequest(url: URL(string: "https://api.example.com:8443/y")!), on: session)
        #expect(text(body) == "y")
    }

    @Test func pathRegularExpressions() async throws {
        let set = StubSet()
        set.stub(try RequestMatcher().method("GET").pathMatching("^/v[0-9]+/items$"), response: .text("items"))
        let session = set.makeSession()
        #expect(text(try await get("/v2/items", on: session).0) == "items")
        #expect(await urlError { _ = try await get("/vx/items", on: session) } != nil)
    }

    /// Patterns and templates are tried by the literal start of their paths (a request tries only those its path
    /// starts with), and the newest stub that matches still answers, whatever start it is filed under.
    @Test func patternsAndTemplatesKeepNewestFirstAcrossTheirStarts() async throws {
        let set = StubSet()
        set.stub(try RequestMatcher().method("GET").pathMatching("^/items/1[0-9]*$"), response: .text("ones"))
        let newer = set.stub(RequestMatcher().method("GET").pathTemplate("/items/{id}"), response: .text("template"))
        set.stub(try RequestMatcher().method("GET").pathMatching("^/other/"), response: .text("other"))
        set.stub(try RequestMatcher().method("GET").pathMatching("items/7$"), response: .text("unanchored"))
        let session = set.makeSession()
        // Filed under "/items/1", "/items/" and "": the newest that matches answers.
        #expect(text(try await get("/items/7", on: session).0) == "unanchored")
        #expect(text(try await get("/items/12", on: session).0) == "template")
        #expect(text(try await get("/other/x", on: session).0) == "other")
        set.remove(newer)
        #expect(text(try await get("/items/12", on: session).0) == "ones")
        #expect(await urlError { _ = try await get("/items/x", on: session) } != nil)
        // A path shorter than a stub's start is not that stub's.
        #expect(await urlError { _ = try await get("/item", on: session) } != nil)
    }

    /// A condition made with a closure, then given another: the new one judges (matching and the near miss alike).
    @Test func aConditionsReplacedEvaluationIsTheOneThatJudges() async throws {
        var condition = RequestMatcher.Condition("always") { _ in nil }
        condition.evaluate = { $0.path == "/yes" ? nil : "only /yes" }
        let set = StubSet()
        set.stub(RequestMatcher().adding(condition), response: .text("yes"))
        let session = set.makeSession()
        #expect(text(try await get("/yes", on: session).0) == "yes")
        let error = await urlError { _ = try await get("/no", on: session) }
        #expect(error?.localizedDescription.contains("only /yes") == true)
    }

    @Test func querySubsetAndExact() async throws {
        let set = StubSet()
        set.stub(RequestMatcher().path("/s").query(["q": "soup"], exact: true), response: .text("exact"))
        set.stub(RequestMatcher().path("/t").query(["q": "soup"]), response: .text("subset"))
        let session = set.makeSession()
        #expect(text(try await get("/s?q=soup", on: session).0) == "exact")
        #expect(await urlError { _ = try await get("/s?q=soup&page=2", on: session) } != nil)
        #expect(text(try await get("/t?page=2&q=soup", on: session).0) == "subset")
    }

    @Test func headersAndMethods() async throws {
        let set = StubSet()
        set.stub(.delete(base + "/item").header("Authorization"), response: .status(204))
        let session = set.makeSession()
        var request = URLRequest(url: url("/item"))
        request.httpMethod = "DELETE"
        request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        #expect(try await send(request, on: session).1.statusCode == 204)
        request.setValue(nil, forHTTPHeaderField: "Authorization")
        let error = await urlError { _ = try await send(request, on: session) }
        #expect(error?.localizedDescription.contains("header Authorization missing") == true)
    }

    @Test func loggedRequestHeadersAreFoundInAnyCase() async throws {
        let set = StubSet()
        set.stub(.get(base + "/key"), response: .status(204))
        let session = set.makeSession()
        var request = URLRequest(url: url("/key"))
        request.setValue("k1", forHTTPHeaderField: "x-api-key")
        request.setValue("application/json", forHTTPHeaderField: "ACCEPT")
        #expect(try await send(request, on: session).1.statusCode == 204)
        let logged = try #require(set.requests.first)
        #expect(logged.headers["X-API-Key"] == "k1")
        #expect(logged.headers["accept"] == "application/json")
        #expect(logged.header("X-Api-Key") == "k1")
        #expect(logged.headers.contains("x-API-key"))
        #expect(logged.headers["Authorization"] == nil)
    }

    @Test func jsonBodyEqualAndSubsetReadFromHTTPBody() async throws {
        let set = StubSet()
        let expected = try JSONValue(parsing: Data(#"{"title":"Soup","tags":["hot"]}"#.utf8))
        set.stub(.post(base + "/equal").jsonBody(expected), response: .status(201))
        set.stub(
            .post(base + "/subset").jsonBody(try JSONValue(parsing: Data(#"{"title":"Soup"}"#.utf8)), subset: true),
            response: .status(201))
        let session = set.makeSession()
        var request = URLRequest(url: url("/equal"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"tags": ["hot"], "title": "Soup"}"#.utf8)
        #expect(try await send(request, on: session).1.statusCode == 201)
        request.url = url("/subset")
        request.httpBody = Data(#"{"title": "Soup", "extra": 1}"#.utf8)
        #expect(try await send(request, on: session).1.statusCode == 201)
        request.httpBody = Data(#"{"title": "Stew"}"#.utf8)
        let error = await urlError { _ = try await send(request, on: session) }
        #expect(error?.localizedDescription.contains("JSON body differs at /title") == true)
    }

    @Test func anInvalidPathPatternFailsWhereTheStubIsMade() {
        let error = #expect(throws: RequestMatcherError.self) {
            try RequestMatcher.get(base).pathMatching("^/v[0-9+/items$")
        }
        #expect(
            error?.message.hasPrefix(
                #"pathMatching: expected a regular expression (ECMA-262), found "^/v[0-9+/items$" ("#) == true
        )
    }

    @Test func jsonBodyNumbersCompareIntegersExactly() async throws {
        let set = StubSet()
        set.stub(
            .post(base + "/id").jsonBody(try JSONValue(parsing: Data(#"{"id": 9007199254740993}"#.utf8))),
            response: .status(201))
        let session = set.makeSession()
        var request = URLRequest(url: url("/id"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"id": 9007199254740992}"#.utf8)  // the same Double, another integer
        let error = await urlError { _ = try await send(request, on: session) }
        #expect(
            error?.localizedDescription.contains(
                #"JSON body differs: expected {"id":9007199254740993}, got {"id":9007199254740992}"#) == true)
        request.httpBody = Data(#"{"id": 9007199254740993}"#.utf8)
        #expect(try await send(request, on: session).1.statusCode == 201)
        // Spellings of one number still match: 1.5 and 1.50, 0 and -0.
        #expect(try JSONValue(parsing: Data("[1.5, 0]".utf8)) == JSONValue(parsing: Data("[1.50, -0]".utf8)))
    }

    @Test func bodiesArriveFromAStreamToo() async throws {
        let set = StubSet()
        set.stub(.post(base + "/stream").body(Data("payload".utf8)), response: .status(200))
        let session = set.makeSession()
        var request = URLRequest(url: url("/stream"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("payload".utf8))
        #expect(try await send(request, on: session).1.statusCode == 200)
        #expect(set.requests.first?.body == Data("payload".utf8))
    }

    @Test func uploadBodiesAreExplainedWhenTheProtocolCannotSeeThem() async throws {
        let set = StubSet()
        set.stub(.post(base + "/upload").body(Data("payload".utf8)), response: .status(200))
        let session = set.makeSession()
        var request = URLRequest(url: url("/upload"))
        request.httpMethod = "POST"
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation does not hand an upload's body to a URLProtocol: the diagnostic says so.
        let error = await urlError { _ = try await session.upload(for: request, from: Data("payload".utf8)) }
        #expect(error?.code == .resourceUnavailable)
        #expect(
            error?.localizedDescription.contains("upload(for:from:) is not visible to a URLProtocol on Linux") == true)
        #else
        // Apple's Foundation passes the body on as a stream: the stub matches.
        let (_, response) = try await session.upload(for: request, from: Data("payload".utf8))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(set.requests.first?.body == Data("payload".utf8))
        #endif
    }

    @Test func closureMatchers() async throws {
        let set = StubSet()
        set.stub(
            RequestMatcher().matching("even id") { ($0.url.lastPathComponent as NSString).integerValue % 2 == 0 },
            response: .text("even"))
        let session = set.makeSession()
        #expect(text(try await get("/n/4", on: session).0) == "even")
        let error = await urlError { _ = try await get("/n/3", on: session) }
        #expect(error?.localizedDescription.contains("even id did not accept the request") == true)
    }

    @Test func theMostRecentlyAddedMatchingStubAnswers() async throws {
        let set = StubSet()
        set.stub(try RequestMatcher().pathMatching("^/api/"), response: .text("general"))
        let specific = set.stub(.get(base + "/api/search"), response: .text("specific"))
        let session = set.makeSession()
        #expect(text(try await get("/api/search", on: session).0) == "specific")
        #expect(text(try await get("/api/other", on: session).0) == "general")
        set.remove(specific)
        #expect(text(try await get("/api/search", on: session).0) == "general")
        #expect(set.hitCount(of: specific) == 1)
    }

    /// Stubs with an exact method and path are found through an index by path; these pin what that
    /// index must not change: the method still decides, removal takes one stub out of a shared bucket,
    /// and a matcher whose own conditions disagree never matches.
    @Test func indexedStubsStillMatchEveryCondition() async throws {
        let set = StubSet()
        let read = set.stub(.get(base + "/api/items/1"), response: .text("read"))
        let update = set.stub(.put(base + "/api/items/1"), response: .text("update"))
        set.stub(.get(base + "/api/items/2").method("POST"), response: .text("never"))
        set.stub(.get("https://other.example.com/api/items/1"), response: .text("other host"))
        let session = set.makeSession()
        var request = URLRequest(url: url("/api/items/1"))
        request.httpMethod = "put"
        #expect(text(try await send(request, on: session).0) == "update")
        #expect(text(try await get("/api/items/1", on: session).0) == "read")
        #expect(
            text(try await send(URLRequest(url: URL(string: "HTTPS://API.Example.COM/api/items/1")!), on: session).0)
                == "read")
        set.remove(update)
        #expect(await urlError { _ = try await send(request, on: session) } != nil)
        #expect(text(try await get("/api/items/1", on: session).0) == "read")
        for method in ["GET", "POST"] {
            var conflicting = URLRequest(url: url("/api/items/2"))
            conflicting.httpMethod = method
            #expect(await urlError { _ = try await send(conflicting, on: session) }?.code == .resourceUnavailable)
        }
        #expect(set.hitCount(of: read) == 3)
        #expect(set.hitCount(of: update) == 1)
    }

    @Test func percentEncodedPathsMatchTheirDecodedForm() async throws {
        let set = StubSet()
        set.stub(.get(base + "/api/recipes/banana%20bread"), response: .text("decoded"))
        set.stub(RequestMatcher().path("/a b").header("x-trace", "1"), response: .text("header"))
        let session = set.makeSession()
        #expect(text(try await get("/api/recipes/banana%20bread", on: session).0) == "decoded")
        var request = URLRequest(url: url("/a%20b"))
        request.setValue("1", forHTTPHeaderField: "X-Trace")
        #expect(text(try await send(request, on: session).0) == "header")
    }

    @Test func unmatchedRequestListsTheClosestStubsAndWhy() async throws {
        let set = StubSet()
        set.stub(.get(base + "/api/search").query(["q": "chicken"]), response: .text("a"), name: "search")
        set.stub(.post(base + "/api/search"), response: .text("b"), name: "create")
        set.stub(.get("https://other.example.com/x"), response: .text("c"), name: "other")
        set.stub(.get(base + "/api/get"), response: .text("d"), name: "get")
        let session = set.makeSession()
        let error = await urlError { _ = try await get("/api/search?page=2", on: session) }
        let message = try #require(error?.localizedDescription)
        #expect(error?.code == .resourceUnavailable)
        #expect(message.hasPrefix("HTTPStubs: no stub matches GET https://api.example.com/api/search?page=2"))
        #expect(message.contains("Closest stubs (3 of 4):"))
        #expect(message.contains("1. search: query item q missing"))
        #expect(message.contains("create: method differs: expected POST, got GET"))
        #expect(!message.contains("other:"))
    }
}

@Suite(.temporaryFolder) struct RedactedFixtureMatchingTests {
    /// A fixture recorded with a marker of the team's own (`RedactionPolicy(marker:)`): the query items its
    /// `metadata.redactions` lists match any value; the others match exactly, whatever their text.
    @Test func queryItemsListedAsRedactedMatchAnyValueWhateverTheMarker() async throws {
        let recorded = Exchange(
            request: RecordedRequest(url: base + "/search?q=REDACTED&api_key=abc123"),
            response: RecordedResponse(status: 200, body: .text("ok")))
        let policy = RedactionPolicy(queryParameters: ["api_key"], marker: "***")
        let fixture = Redactor(policy).redact(recorded)
        #expect(fixture.request.url == base + "/search?q=REDACTED&api_key=***")
        #expect(fixture.metadata.redactions == ["request.query.api_key"])

        let stubs = StubSet()
        stubs.stub(fixture)
        let session = stubs.makeSession()
        let (body, response) = try await get("/search?q=REDACTED&api_key=the-real-key", on: session)
        #expect(response.statusCode == 200)
        #expect(text(body) == "ok")
        // `q` was not redacted: its recorded value is a value like any other, not a wildcard.
        let error = await urlError { _ = try await get("/search?q=pasta&api_key=the-real-key", on: session) }
        #expect(error?.code == .resourceUnavailable)
        #expect(error?.localizedDescription.contains("query item q differs: expected REDACTED, got pasta") == true)
    }
}

@Suite(.temporaryFolder) struct RequestLogLimitTests {
    @Test func theLogKeepsTheMostRecentRequestsAndCountsTheRest() async throws {
        let set = StubSet()
        #expect(set.requestLogLimit == 10_000)
        set.requestLogLimit = 3
        let handle = set.stub(.any, response: .status(204))
        let session = set.makeSession()
        for index in 0..<10 { _ = try await get("/r\(index)", on: session) }
        #expect(set.requests.map(\.url.path) == ["/r7", "/r8", "/r9"])
        #expect(set.droppedRequestCount == 7)
        #expect(set.hitCount(of: handle) == 10)  // counts never drop
        set.reset()
        #expect(set.requestLogLimit == 3)
        #expect(set.requests.isEmpty && set.droppedRequestCount == 0)
    }

    @Test func unmatchedRequestsAreReportedEvenWhenTheyLeftTheLog() async throws {
        let set = StubSet()
        set.requestLogLimit = 2
        set.stub(.get(base + "/ok"), response: .status(204))
        let session = set.makeSession()
        _ = await urlError { _ = try await get("/missing", on: session) }
        for _ in 0..<3 { _ = try await get("/ok", on: session) }
        let error = #expect(throws: StubVerificationError.self) { try set.requireNoUnmatchedRequests() }
        #expect(
            error?.message
                == "1 request(s) matched no stub; 1 of them no longer in the log (see requestLogLimit)")
    }
}

/// `stubAll(from:in:scenario:)`: fixtures of one request answer in turn; a scenario's fixtures answer over the
/// others only when it is asked for (the rule `apiprobe serve` shares).
@Suite(.temporaryFolder) struct FixtureSequenceAndScenarioTests {
    static func write(_ folder: URL, _ name: String, url: String, body: String) throws {
        let file = folder.appendingPathComponent(name + ".json")
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(
            (#"{"request": {"method": "GET", "url": "\#(url)"}, "response": {"status": 200, "#
                + #""headers": {"Content-Type": "application/json"}, "body": \#(body)}}"#).utf8
        ).write(to: file)
    }

    @Test func fixturesOfOneRequestAreASequenceAndAScenarioAnswersOverTheOthers() async throws {
        let folder = try TemporaryFolder.make("stub-sequences")
        // The query items in another order are the same request.
        try Self.write(folder, "shop/job", url: base + "/jobs/7?a=1&b=2", body: #"{"state": "running"}"#)
        try Self.write(folder, "shop/job.2", url: base + "/jobs/7?b=2&a=1", body: #"{"state": "done"}"#)
        try Self.write(
            folder, "shop/scenarios/broken/job", url: base + "/jobs/7?a=1&b=2", body: #"{"state": "failed"}"#)
        let store = FixtureStore(directory: folder)
        #expect(FixtureStore.scenario(ofFixture: "shop/scenarios/broken/job") == "broken")
        #expect(FixtureStore.scenario(ofFixture: "shop/job") == nil)
        #expect(FixtureStore.scenario(ofFixture: "shop/scenarios/job") == nil, "a fixture named scenarios/job")
        #expect(store.scenarioNames() == ["broken"])
        // A scenario's fixture is a sample of the endpoint it stands in for (snapshots, contract tests).
        #expect(FixtureStore.endpointName(ofFixture: "shop/scenarios/broken/job.2") == "shop/job")
        #expect(try store.endpoints(in: "shop").map(\.name) == ["shop/job"])
        #expect(
            try store.endpoint(named: "shop/job").fixtureNames.sorted() == [
                "shop/job", "shop/job.2", "shop/scenarios/broken/job",
            ])

        let stubs = StubSet()
        let handles = try stubs.stubAll(from: store, in: "shop")
        #expect(handles.map(\.name) == ["shop/job, then shop/job.2"])
        let session = stubs.makeSession()
        defer { session.invalidateAndCancel() }
        var states: [String] = []
        for _ in 0..<3 { states.append(text(try await get("/jobs/7?a=1&b=2", on: session).0)) }
        #expect(
            states.map { $0.contains("running") ? "running" : $0.contains("done") ? "done" : $0 } == [
                "running", "done", "done",
            ])
        #expect(stubs.log.map { $0.stub?.name } == ["shop/job", "shop/job.2", "shop/job.2"])

        let broken = StubSet()
        try broken.stubAll(from: store, in: "shop", scenario: "broken")
        let brokenSession = broken.makeSession()
        defer { brokenSession.invalidateAndCancel() }
        #expect(text(try await get("/jobs/7?a=1&b=2", on: brokenSession).0).contains("failed"))
    }
}

/// A fixture's `metadata.match`, `latency` and `fault`: read from the file, checked with a JSON Pointer, and served by
/// the stubs' one matcher.
@Suite(.temporaryFolder) struct FixtureMatchMetadataTests {
    static func exchange(
        _ metadata: String, url: String = base + "/recipes/7?lang=en", body: String? = nil
    ) throws(InputError) -> Exchange {
        let request =
            #"{"method": "POST", "url": "\#(url)""# + (body.map { #", "body": \#($0)"# } ?? "") + "}"
        let text =
            #"{"metadata": \#(metadata), "request": \#(request), "#
            + #""response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": {"ok": true}}}"#
        return try Exchange(decoding: Data(text.utf8), file: "match.json")
    }

    static func status(_ stubs: StubSet, _ path: String, headers: [String: String] = [:], body: String? = nil)
        async throws -> Int
    {
        var request = URLRequest(url: url(path))
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0.utf8) }
        let session = stubs.makeSession()
        defer { session.invalidateAndCancel() }
        do {
            return try await send(request, on: session).1.statusCode
        } catch let error as URLError {
            return error.code.rawValue  // negative: a URLError, not a status
        }
    }

    @Test func aTemplateAQueryRuleHeadersAndTheBodyWidenOrNarrowTheMatch() async throws {
        let metadata =
            #"{"match": {"path": "/recipes/{id}", "query": "contains", "headers": {"Accept-Language": "fr"}, "#
            + #""body": "exact"}}"#
        let exchange = try Self.exchange(metadata, body: #"{"b": 2, "a": 1}"#)
        #expect(
            exchange.metadata.match
                == FixtureMatch(
                    path: "/recipes/{id}", query: .contains, headers: ["Accept-Language": "fr"], body: .exact))
        #expect(try Exchange(decoding: exchange.encoded(), file: "again.json") == exchange, "written as read")

        let stubs = StubSet()
        stubs.stub(exchange, name: "recipe")
        let french = ["Accept-Language": "fr"]
        let json = #"{"a": 1, "b": 2}"#
        #expect(try await Self.status(stubs, "/recipes/99?lang=en&page=2", headers: french, body: json) == 200)
        #expect(try await Self.status(stubs, "/recipes/99?page=2", headers: french, body: json) < 0, "lang missing")
        #expect(try await Self.status(stubs, "/recipes/99?lang=en", body: json) < 0, "no Accept-Language")
        #expect(try await Self.status(stubs, "/recipes/99?lang=en", headers: french, body: #"{"a": 2}"#) < 0)
        #expect(try await Self.status(stubs, "/recipes/99/steps?lang=en", headers: french, body: json) < 0)
        let session = stubs.makeSession()
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: url("/recipes/99?lang=en"))
        request.httpMethod = "POST"
        let miss = await urlError { _ = try await send(request, on: session) }
        let diagnosis = miss?.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        #expect(diagnosis.contains("header Accept-Language missing"), "\(diagnosis)")

        let anyQuery = StubSet()
        anyQuery.stub(try Self.exchange(#"{"match": {"query": "ignore"}}"#), name: "any")
        #expect(try await Self.status(anyQuery, "/recipes/7?x=1") == 200)
        #expect(try await Self.status(anyQuery, "/recipes/8") < 0, "the recorded path still holds")
    }

    @Test func latencyAndAFaultAreServed() async throws {
        let slow = StubSet()
        slow.stub(try Self.exchange(#"{"latency": "300ms", "match": {"query": "ignore"}}"#), name: "slow")
        let start = ContinuousClock.now
        #expect(try await Self.status(slow, "/recipes/7") == 200)
        #expect(ContinuousClock.now - start >= .milliseconds(300))

        let failing = StubSet()
        failing.stub(try Self.exchange(#"{"fault": "timedOut", "match": {"query": "ignore"}}"#), name: "down")
        #expect(try await Self.status(failing, "/recipes/7") == URLError.Code.timedOut.rawValue)
    }

    @Test(arguments: [
        (#"{"match": {"path": "recipes/{id}"}}"#, "/metadata/match/path", "a path template"),
        (#"{"match": {"query": "some"}}"#, "/metadata/match/query", #""exact", "contains" or "ignore""#),
        (#"{"match": {"body": true}}"#, "/metadata/match/body", "a string"),
        (#"{"match": {"paht": "/x"}}"#, "/metadata/match/paht", "one of path, pathPattern, query, queryPatterns"),
        (#"{"match": {"pathPattern": "(x"}}"#, "/metadata/match/pathPattern", "an ECMA-262 regular expression"),
        (#"{"match": {"priority": 0}}"#, "/metadata/match/priority", "an integer from 1"),
        (#"{"match": {"bodyPointers": {"a": 1}}}"#, "/metadata/match/bodyPointers/a", "a JSON Pointer"),
        (#"{"state": {"name": "cart"}}"#, "/metadata/state", #"a "requires" or a "next" state"#),
        (#"{"template": "yes"}"#, "/metadata/template", "true or false"),
        (#"{"match": {"headers": {"X": 1}}}"#, "/metadata/match/headers/X", "a string"),
        (#"{"latency": "fast"}"#, "/metadata/latency", "a duration up to 10m"),
        (#"{"fault": "boom"}"#, "/metadata/fault", "one of timedOut"),
    ])
    func aBadMatchLatencyOrFaultNamesItsPlace(metadata: String, pointer: String, expected: String) throws {
        do {
            _ = try Self.exchange(metadata)
            Issue.record("\(metadata) was read")
        } catch {
            #expect(error.position == .jsonPointer(pointer), "\(error)")
            #expect(error.expected.hasPrefix(expected), "\(error)")
            #expect(error.file == "match.json")
        }
    }
}
