import APIProbeTestSupport
import Foundation
import HTTPFixtures
import HTTPStubs
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fixture format's matching, state machines and templates in the in-process stubs: the same rules
/// `apiprobe serve` uses (ServeMatchingTests runs them there), through URLSession.
struct FixtureBehaviourTests {
    static func fixture(_ json: String) throws -> Exchange {
        try Exchange(decoding: Data(json.utf8), file: "fixture.json")
    }

    @Test func aStateMachineMovesOnARequestAndResets() async throws {
        let set = StubSet()
        set.stub(
            try Self.fixture(
                #"{"metadata": {"state": {"name": "cart", "requires": "start"}}, "#
                    + #""request": {"method": "GET", "url": "\#(base)/cart"}, "response": {"status": 200, "body": []}}"#
            ))
        set.stub(
            try Self.fixture(
                #"{"metadata": {"state": {"name": "cart", "next": "full"}}, "#
                    + #""request": {"method": "POST", "url": "\#(base)/cart"}, "response": {"status": 201}}"#))
        set.stub(
            try Self.fixture(
                #"{"metadata": {"state": {"name": "cart", "requires": "full"}}, "#
                    + #""request": {"method": "GET", "url": "\#(base)/cart"}, "response": {"status": 200, "body": [1]}}"#
            ))
        let session = set.makeSession()
        #expect(text(try await get("/cart", on: session).0) == "[]")
        var post = URLRequest(url: url("/cart"))
        post.httpMethod = "POST"
        #expect(try await send(post, on: session).1.statusCode == 201)
        #expect(set.state(of: "cart") == "full")
        #expect(text(try await get("/cart", on: session).0) == "[1]")
        set.resetStates()
        #expect(set.state(of: "cart") == FixtureState.initial)
        #expect(text(try await get("/cart", on: session).0) == "[]")
    }

    @Test func aTemplateIsFilledFromTheRequest() async throws {
        let set = StubSet()
        set.stub(
            try Self.fixture(
                #"{"metadata": {"template": true, "match": {"path": "/items/{id}", "query": "ignore"}}, "#
                    + #""request": {"method": "POST", "url": "\#(base)/items/1"}, "#
                    + #""response": {"status": 200, "headers": {"X-Item": "item-{{request.path.id}}"}, "#
                    + #""body": {"id": "{{request.path.id}}", "qty": "{{request.body/qty}}", "#
                    + #""all": "{{request.body}}", "q": "{{request.query.q}}", "n": "{{request.id}}", "#
                    + #""missing": "{{request.body/none}}", "text": "{{request.method}} {{request.path}}"}}}"#))
        let session = set.makeSession()
        var request = URLRequest(url: url("/items/caf%C3%A9?q=a%20b"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"qty": 3}"#.utf8)
        let (data, response) = try await send(request, on: session)
        #expect(response.value(forHTTPHeaderField: "X-Item") == "item-café")
        #expect(
            text(data)
                == #"{"id":"café","qty":3,"all":{"qty":3},"q":"a b","n":"1","missing":null,"text":"POST /items/café"}"#
        )
    }

    @Test func priorityPicksAmongFixturesThatMatch() async throws {
        let set = StubSet()
        set.stub(
            try Self.fixture(
                #"{"metadata": {"match": {"priority": 2, "pathPattern": "^/p/"}}, "#
                    + #""request": {"method": "GET", "url": "\#(base)/p/1"}, "response": {"status": 200, "body": "two"}}"#
            ))
        set.stub(
            try Self.fixture(
                #"{"metadata": {"match": {"priority": 1, "path": "/p/{id}"}}, "#
                    + #""request": {"method": "GET", "url": "\#(base)/p/1"}, "response": {"status": 200, "body": "one"}}"#
            ))
        // Added last, without a priority (5): without priorities it would answer.
        set.stub(
            try Self.fixture(
                #"{"request": {"method": "GET", "url": "\#(base)/p/1"}, "response": {"status": 200, "body": "plain"}}"#)
        )
        let session = set.makeSession()
        #expect(text(try await get("/p/1", on: session).0) == #""one""#)
        #expect(text(try await get("/p/2", on: session).0) == #""one""#)
    }

    @Test func headIsAnsweredFromGetWithoutTheBody() async throws {
        let set = StubSet()
        set.stub(
            try Self.fixture(
                #"{"request": {"method": "GET", "url": "\#(base)/doc"}, "response": {"status": 200, "#
                    + #""headers": {"ETag": "\"v1\""}, "body": {"big": true}}}"#))
        let session = set.makeSession()
        var head = URLRequest(url: url("/doc"))
        head.httpMethod = "HEAD"
        let (data, response) = try await send(head, on: session)
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "ETag") == "\"v1\"")
        #expect(data.isEmpty)
    }

    /// A thousand recordings of one path that differ by their query are found by the index, and each still
    /// answers only its own query (order and repeats ignored, as the exact rule reads them).
    @Test func exactQueriesAreIndexedWithoutChangingWhatMatches() async throws {
        let set = StubSet()
        for index in 0..<1_000 {
            set.stub(
                try Self.fixture(
                    #"{"request": {"method": "GET", "url": "\#(base)/s?page=\#(index)&q=x"}, "#
                        + #""response": {"status": 200, "body": \#(index)}}"#))
        }
        let session = set.makeSession()
        #expect(text(try await get("/s?q=x&page=417", on: session).0) == "417")
        #expect(text(try await get("/s?page=3&q=x&q=x", on: session).0) == "3")
        let extra = await urlError { _ = try await get("/s?page=3&q=x&sort=1", on: session) }
        #expect(extra?.localizedDescription.contains("query has unexpected item sort") == true)
    }

    /// A pattern's literal start is compared before the regular expression runs, and a pattern that is one literal
    /// path is indexed as one: neither changes what matches.
    @Test(arguments: [
        ("^/items/10$", "/items/10", true), ("^/items/10$", "/items/100", false), ("^/items/10$", "/x/items/10", false),
        ("^/items/1\\d$", "/items/12", true), ("^/items/1\\d$", "/items/1x", false),
        ("^/a\\.b+/c", "/a.bbb/c", true), ("^/a\\.b+/c", "/a./c", false), ("^/ab*c", "/ac", true),
        ("^/a|/b", "/x/b", true), ("/items", "/v2/items", true), ("^/caf\u{E9}$", "/caf\u{E9}", true),
        ("^/caf\u{E9}$", "/cafe\u{301}", false),
    ])
    func pathPatternsMatchAsTheirRegularExpression(pattern: String, path: String, matches: Bool) async throws {
        let set = StubSet()
        set.stub(try RequestMatcher().method("GET").pathMatching(pattern), response: .text("hit"))
        let request = StubRequest(
            method: "GET",
            url: try #require(
                URL(
                    string: "https://api.example.com"
                        + path
                        .addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!)))
        let session = set.makeSession()
        let error = await urlError { _ = try await send(URLRequest(url: request.url), on: session) }
        #expect((error == nil) == matches, "\(pattern) on \(path)")
    }

    /// A fixture whose URL keeps a path variable (`{order_id}`, as the Postman import writes one it has no value
    /// for) answers any value in that segment, as its documentation says (issue 37, item 3).
    @Test func aPlaceholderSegmentIsATemplate() async throws {
        let set = StubSet()
        set.stub(
            try Self.fixture(
                #"{"request": {"method": "GET", "url": "\#(base)/v2/orders/{order_id}/items"}, "#
                    + #""response": {"status": 200, "body": "order"}}"#))
        let session = set.makeSession()
        #expect(text(try await get("/v2/orders/5O190127TN364715T/items", on: session).0) == #""order""#)
        #expect(await urlError { _ = try await get("/v2/orders/5O1/other", on: session) } != nil)
    }
}
