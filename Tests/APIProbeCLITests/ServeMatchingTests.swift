import APIProbeTestSupport
import Foundation
import HTTPFixtures
import HTTPStubs
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What UI tests reach for in `apiprobe serve` (issue 35): redirects served as 3xx (item 9), a deterministic reload
/// that restarts only the sequences that changed (item 8), matching by pattern, cookie, body pointer and priority,
/// state machines, templates, HEAD from GET, CORS, a dropped connection, `Prefer`, and verification by header,
/// query and body. Run by curl and by `FixtureServerClient` from this process, against the built binary.
@Suite(.tags(.commandLine, .outsideTools), .hangGuard, .temporaryFolder)
struct ServeMatchingTests {
    static let origin = "https://shop.example.com"

    /// curl's status, headers and body of one request (`-i`), or its exit status when it got no answer.
    static func curl(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let curl = try #require(ServeSecurityTests.curl, "curl is not installed (apt-get install -y curl)")
        let run = try await CommandLineRunner.runProcess(curl, ["-s", "--max-time", "10"] + arguments)
        return (run.status, run.standardOutput)
    }

    static func write(_ json: String, _ name: String, in folder: URL) throws {
        let url = folder.appendingPathComponent(name + ".json")
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(json.utf8).write(to: url)
    }

    /// A 3xx fixture is the answer: to the fixtures' origin it is made relative (the client follows it here), to
    /// another origin it is left as it is. Before, both were 404s.
    @Test func aRedirectFixtureIsServedAsARedirect() async throws {
        let folder = try TemporaryFolder.make("serve-redirect")
        try Self.write(
            #"{"request": {"method": "GET", "url": "\#(Self.origin)/old"}, "#
                + #""response": {"status": 301, "headers": {"Location": "\#(Self.origin)/new?from=old"}}}"#,
            "old", in: folder)
        try Self.write(
            #"{"request": {"method": "GET", "url": "\#(Self.origin)/new?from=old"}, "#
                + #""response": {"status": 200, "body": {"moved": true}}}"#, "new", in: folder)
        try Self.write(
            #"{"request": {"method": "GET", "url": "\#(Self.origin)/docs"}, "#
                + #""response": {"status": 302, "headers": {"Location": "https://docs.example.org/start"}}}"#,
            "docs", in: folder)
        let (command, base, _) = try await ServeControlTests.serve(folder)
        let old = try await Self.curl(["-i", base + "/old"])
        #expect(old.output.hasPrefix("HTTP/1.1 301"), "\(old)")
        #expect(old.output.contains("Location: /new?from=old\r\n"), "\(old)")
        let followed = try await Self.curl(["-L", base + "/old"])
        #expect(followed.output == #"{"moved":true}"#, "\(followed)")
        let elsewhere = try await Self.curl(["-i", base + "/docs"])
        #expect(elsewhere.output.hasPrefix("HTTP/1.1 302"), "\(elsewhere)")
        #expect(elsewhere.output.contains("Location: https://docs.example.org/start\r\n"), "\(elsewhere)")
        #expect(try await command.stop() == 0)
    }

    /// `reload()` makes an edit the next request's answer, every time (not up to 200 ms late); a sequence whose
    /// fixtures did not change keeps its turn, and touching an unrelated file restarts nothing.
    @Test func reloadServesAnEditAtOnceAndRestartsOnlyWhatChanged() async throws {
        let folder = try TemporaryFolder.make("serve-reload")
        let api = folder.appendingPathComponent("shop")
        try FileManager.default.createDirectory(at: api, withIntermediateDirectories: true)
        for (name, path, body) in [
            ("job", "/jobs/1", #"{"state": "running"}"#), ("job.2", "/jobs/1", #"{"state": "done"}"#),
            ("feed", "/feed", #"{"page": 1}"#), ("feed.2", "/feed", #"{"page": 2}"#),
            ("price", "/price", #"{"price": 0}"#),
        ] {
            try ServeControlTests.fixture("GET", Self.origin + path, body: body)
                .write(to: api.appendingPathComponent(name + ".json"))
        }
        let (command, base, _) = try await ServeControlTests.serve(folder)
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let client = FixtureServerClient(baseURL: try #require(URL(string: base)), session: session)

        #expect(try await Self.curl([base + "/jobs/1"]).output == #"{"state":"running"}"#)
        #expect(try await Self.curl([base + "/feed"]).output == #"{"page":1}"#)
        // An edit of the feed's second page, and a touch of a file no request reads.
        try ServeControlTests.fixture("GET", Self.origin + "/feed", body: #"{"page": 22}"#)
            .write(to: api.appendingPathComponent("feed.2.json"))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 5)],
            ofItemAtPath: api.appendingPathComponent("price.json").path)
        // Read now (or by the look every 200 ms, if it came first: either way once, naming only the edit).
        try await client.reload()
        // The job's sequence kept its turn; the feed's started over, and serves the edit.
        #expect(try await Self.curl([base + "/jobs/1"]).output == #"{"state":"done"}"#)
        #expect(try await Self.curl([base + "/feed"]).output == #"{"page":1}"#)
        #expect(try await Self.curl([base + "/feed"]).output == #"{"page":22}"#)

        // Twenty edits, each read by the very next request.
        var stale = 0
        for round in 0..<20 {
            try ServeControlTests.fixture("GET", Self.origin + "/price", body: #"{"price": \#(round)}"#)
                .write(to: api.appendingPathComponent("price.json"))
            try await client.reload()
            if try await Self.curl([base + "/price"]).output != #"{"price":\#(round)}"# { stale += 1 }
        }
        #expect(stale == 0)
        // A folder that does not load is a 409 naming the file and place; the last good fixtures are served.
        try Data(#"{"request": {"method": "GET"}}"#.utf8).write(to: api.appendingPathComponent("broken.json"))
        await #expect {
            try await client.reload()
        } throws: { error in
            let error = error as? FixtureServerClientError
            return error?.status == 409 && error?.message.contains("broken.json: /request") == true
        }
        // Asked again with nothing changed, it still says so (not "nothing changed").
        await #expect(throws: FixtureServerClientError.self) { try await client.reload() }
        #expect(try await Self.curl([base + "/price"]).output == #"{"price":19}"#)
        #expect(try await command.stop() == 0)
        #expect(command.standardError.contains("(changed: shop/feed.2)\n"), "\(command.standardError)")
    }

    /// A fixture's `match` beyond method, path and query: a path pattern, a header pattern, a cookie, values at
    /// body pointers, a priority; its near misses say which condition failed.
    @Test func fixturesMatchByPatternCookieBodyPointerAndPriority() async throws {
        let folder = try TemporaryFolder.make("serve-match")
        try Self.write(
            #"{"metadata": {"match": {"pathPattern": "^/products/[0-9]+$", "headerPatterns": {"User-Agent": "^ShopApp/"}}}, "#
                + #""request": {"method": "GET", "url": "\#(Self.origin)/products/1"}, "#
                + #""response": {"status": 200, "body": {"kind": "product"}}}"#, "product", in: folder)
        try Self.write(
            #"{"metadata": {"match": {"pathPattern": "^/products/[0-9]+$", "cookies": {"tier": "vip"}, "priority": 1}}, "#
                + #""request": {"method": "GET", "url": "\#(Self.origin)/products/1"}, "#
                + #""response": {"status": 200, "body": {"kind": "vip"}}}"#, "product-vip", in: folder)
        try Self.write(
            #"{"metadata": {"match": {"bodyPointers": {"/items/0/sku": "A-1", "/express": true}}}, "#
                + #""request": {"method": "POST", "url": "\#(Self.origin)/orders"}, "#
                + #""response": {"status": 201, "body": {"express": true}}}"#, "order-express", in: folder)
        try Self.write(
            #"{"metadata": {"match": {"queryPatterns": {"q": "^(tea|coffee)$"}}}, "#
                + #""request": {"method": "GET", "url": "\#(Self.origin)/search?q=tea&page=1"}, "#
                + #""response": {"status": 200, "body": {"drinks": true}}}"#, "search", in: folder)
        let (command, base, _) = try await ServeControlTests.serve(folder)
        #expect(try await Self.curl(["-A", "ShopApp/2.1", base + "/products/42"]).output == #"{"kind":"product"}"#)
        // The VIP fixture (priority 1) wins over the product fixture that matches too.
        #expect(
            try await Self.curl(["-A", "ShopApp/2.1", "-b", "tier=vip; theme=dark", base + "/products/42"]).output
                == #"{"kind":"vip"}"#)
        let other = try await Self.curl(["-A", "Mozilla/5.0", base + "/products/42"])
        #expect(other.output.contains("header User-Agent differs: expected a value matching ^ShopApp/"), "\(other)")
        #expect(other.output.contains("cookie tier missing"), "\(other)")
        let express = try await Self.curl([
            "-X", "POST", "-H", "Content-Type: application/json", "-d",
            #"{"items": [{"sku": "A-1", "qty": 2}], "express": true, "note": "ring twice"}"#, base + "/orders",
        ])
        #expect(express.output == #"{"express":true}"#, "\(express)")
        let standard = try await Self.curl([
            "-X", "POST", "-d", #"{"items": [{"sku": "A-1"}], "express": false}"#, base + "/orders",
        ])
        #expect(standard.output.contains("JSON body differs at /express: expected true, got false"), "\(standard)")
        #expect(try await Self.curl([base + "/search?page=1&q=coffee"]).output == #"{"drinks":true}"#)
        let juice = try await Self.curl([base + "/search?page=1&q=juice"])
        #expect(juice.output.contains("query item q differs: expected a value matching ^(tea|coffee)$"), "\(juice)")
        #expect(try await command.stop() == 0)
    }

    /// A pattern that is not an ECMA-262 regular expression, or a key `match` does not know, stops the server at
    /// load with the file and the JSON Pointer (exit status 2).
    @Test func aBadPatternIsRefusedAtLoad() async throws {
        let folder = try TemporaryFolder.make("serve-bad-pattern")
        try Self.write(
            #"{"metadata": {"match": {"headerPatterns": {"Accept": "(json"}}}, "#
                + #""request": {"method": "GET", "url": "\#(Self.origin)/a"}, "response": {"status": 200}}"#,
            "a", in: folder)
        let refused = try await ServeFidelityTests.refusedStart(["--stubs", folder.path])
        #expect(refused.status == 2, "\(refused)")
        #expect(
            refused.standardError.contains(
                "a.json: /metadata/match/headerPatterns/Accept: expected an ECMA-262 regular expression"),
            "\(refused.standardError)")
        try Self.write(
            #"{"metadata": {"match": {"bodyPointer": {"/a": 1}}}, "#
                + #""request": {"method": "GET", "url": "\#(Self.origin)/a"}, "response": {"status": 200}}"#,
            "a", in: folder)
        let misspelt = try await ServeFidelityTests.refusedStart(["--stubs", folder.path])
        #expect(misspelt.status == 2)
        #expect(misspelt.standardError.contains("/metadata/match/bodyPointer: expected one of path, pathPattern"))
    }

    /// "Add to cart, then the cart has one item", with no call from the test: a state machine moved by a request,
    /// and a templated answer filled from that request; `reset()` puts the machine back.
    @Test func aStateMachineAndATemplateNeedNoCallFromTheTest() async throws {
        let folder = try TemporaryFolder.make("serve-state")
        try Self.write(
            #"{"metadata": {"state": {"name": "cart", "requires": "start"}}, "#
                + #""request": {"method": "GET", "url": "\#(Self.origin)/cart"}, "#
                + #""response": {"status": 200, "body": {"items": []}}}"#, "cart-empty", in: folder)
        try Self.write(
            #"{"metadata": {"state": {"name": "cart", "next": "one item"}, "template": true, "match": {"query": "ignore"}}, "#
                + #""request": {"method": "POST", "url": "\#(Self.origin)/cart"}, "#
                + #""response": {"status": 201, "headers": {"Location": "\#(Self.origin)/cart/items/{{request.id}}", "#
                + #""X-Echo": "{{request.header.X-Client}}"}, "#
                + #""body": {"sku": "{{request.body/sku}}", "qty": "{{request.body/qty}}", "#
                + #""line": "{{request.query.line}}-{{request.body/sku}}", "unknown": "{{request.nothing}}"}}}"#,
            "cart-add", in: folder)
        try Self.write(
            #"{"metadata": {"state": {"name": "cart", "requires": "one item"}}, "#
                + #""request": {"method": "GET", "url": "\#(Self.origin)/cart"}, "#
                + #""response": {"status": 200, "body": {"items": [{"sku": "A-1"}]}}}"#, "cart-one", in: folder)
        let (command, base, _) = try await ServeControlTests.serve(folder)
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let client = FixtureServerClient(baseURL: try #require(URL(string: base)), session: session)

        #expect(try await Self.curl([base + "/cart"]).output == #"{"items":[]}"#)
        let added = try await Self.curl([
            "-i", "-X", "POST", "-H", "X-Client: ios", "-d", #"{"sku": "A-1", "qty": 2}"#, base + "/cart?line=7",
        ])
        #expect(added.output.hasPrefix("HTTP/1.1 201"), "\(added)")
        #expect(added.output.contains("Location: /cart/items/2\r\n"), "\(added)")
        #expect(added.output.contains("X-Echo: ios\r\n"), "\(added)")
        #expect(
            added.output.hasSuffix(#"{"sku":"A-1","qty":2,"line":"7-A-1","unknown":"{{request.nothing}}"}"#),
            "\(added)")
        #expect(try await Self.curl([base + "/cart"]).output == #"{"items":[{"sku":"A-1"}]}"#)
        #expect(try await client.states() == ["cart": "one item"])
        try await client.reset()
        #expect(try await client.states() == [:])
        #expect(try await Self.curl([base + "/cart"]).output == #"{"items":[]}"#)
        try await client.setState("one item", of: "cart")
        #expect(try await Self.curl([base + "/cart"]).output == #"{"items":[{"sku":"A-1"}]}"#)
        #expect(try await command.stop() == 0)
    }

    /// HEAD is answered from GET without the body; `--cors` answers a preflight and allows the caller's origin
    /// (never on the admin API); a fixture's fault closes the connection without an answer (curl's "empty reply",
    /// URLSession's lost connection), where a 502 stood in for it before.
    @Test func headCorsAndADroppedConnection() async throws {
        let folder = try TemporaryFolder.make("serve-head-cors")
        try ServeControlTests.fixture("GET", Self.origin + "/cart", body: #"{"items": []}"#)
            .write(to: folder.appendingPathComponent("cart.json"))
        try Self.write(
            #"{"metadata": {"fault": "networkConnectionLost"}, "#
                + #""request": {"method": "GET", "url": "\#(Self.origin)/flaky"}, "response": {"status": 200}}"#,
            "flaky", in: folder)
        let (command, base, _) = try await ServeControlTests.serve(folder, ["--cors"])
        let head = try await Self.curl(["-I", base + "/cart"])
        #expect(head.output.hasPrefix("HTTP/1.1 200"), "\(head)")
        #expect(head.output.contains("Content-Length: 12\r\n"), "\(head)")

        let preflight = try await Self.curl([
            "-i", "-X", "OPTIONS", "-H", "Origin: http://localhost:5173", "-H", "Access-Control-Request-Method: POST",
            "-H", "Access-Control-Request-Headers: content-type", base + "/cart",
        ])
        #expect(preflight.output.hasPrefix("HTTP/1.1 204"), "\(preflight)")
        #expect(preflight.output.contains("Access-Control-Allow-Origin: http://localhost:5173\r\n"), "\(preflight)")
        #expect(preflight.output.contains("Access-Control-Allow-Headers: content-type\r\n"), "\(preflight)")
        let allowed = try await Self.curl(["-i", "-H", "Origin: http://localhost:5173", base + "/cart"])
        #expect(allowed.output.contains("Access-Control-Allow-Origin: http://localhost:5173\r\n"), "\(allowed)")
        let admin = try await Self.curl(["-i", "-H", "Origin: http://localhost:5173", base + "/__apiprobe/requests"])
        #expect(!admin.output.contains("Access-Control-Allow-Origin"), "\(admin)")

        let dropped = try await Self.curl(["-i", base + "/flaky"])
        #expect(dropped.status == 52, "curl: empty reply from server: \(dropped)")
        #expect(dropped.output.isEmpty, "\(dropped)")
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        await #expect {
            _ = try await session.data(from: try #require(URL(string: base + "/flaky")))
        } throws: { error in
            [.networkConnectionLost, .badServerResponse, .cannotParseResponse].contains((error as? URLError)?.code)
        }
        #expect(try await command.stop() == 0)
    }

    /// With `--spec`, `Prefer: code=404, example=missing` answers that example over the fixtures; an example the
    /// operation does not have is a 404 naming the ones it has, a bad code a 400.
    @Test func preferChoosesTheDescriptionsExample() async throws {
        let folder = try TemporaryFolder.make("serve-prefer")
        let stubs = folder.appendingPathComponent("Stubs")
        try ServeControlTests.fixture("GET", "https://shop.example.com/items/1", body: #"{"id": 1, "from": "fixture"}"#)
            .write(
                to: {
                    try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
                    return stubs.appendingPathComponent("item.json")
                }())
        let spec = folder.appendingPathComponent("openapi.json")
        try Data(
            #"""
            {"openapi": "3.0.3", "info": {"title": "Shop", "version": "1"},
             "servers": [{"url": "https://shop.example.com"}],
             "paths": {"/items/{id}": {"get": {"operationId": "getItem",
               "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
               "responses": {
                 "200": {"description": "ok", "content": {"application/json": {"example": {"id": 1, "from": "spec"}}}},
                 "404": {"description": "missing", "content": {"application/json": {"examples": {
                   "missing": {"value": {"error": "no such item"}},
                   "gone": {"value": {"error": "deleted"}}}}}}}}}}}
            """#.utf8
        ).write(to: spec)
        let (command, base, _) = try await ServeControlTests.serve(stubs, ["--spec", spec.path])
        #expect(try await Self.curl([base + "/items/1"]).output == #"{"id":1,"from":"fixture"}"#)
        let gone = try await Self.curl(["-i", "-H", "Prefer: code=404, example=gone", base + "/items/1"])
        #expect(gone.output.hasPrefix("HTTP/1.1 404"), "\(gone)")
        #expect(gone.output.hasSuffix(#"{"error":"deleted"}"#), "\(gone)")
        #expect(
            gone.output.contains(
                "X-Apiprobe-Example: /paths/~1items~1{id}/get/responses/404/content/application~1json/examples/gone/value"
            ), "\(gone)")
        let unknown = try await Self.curl(["-H", "Prefer: code=404, example=stolen", base + "/items/1"])
        #expect(
            unknown.output.contains(
                "Prefer: example=stolen, and the 404 response of GET /items/{id} has missing, gone"), "\(unknown)")
        // A path the description does not have is answered by its fixture, Prefer or not.
        try ServeControlTests.fixture("GET", "https://shop.example.com/health", body: #"{"ok": true}"#)
            .write(to: stubs.appendingPathComponent("health.json"))
        try await FixtureServerClient(baseURL: try #require(URL(string: base))).reload()
        #expect(try await Self.curl(["-H", "Prefer: code=404", base + "/health"]).output == #"{"ok":true}"#)
        let bad = try await Self.curl(["-i", "-H", "Prefer: code=abc", base + "/items/1"])
        #expect(bad.output.hasPrefix("HTTP/1.1 400"), "\(bad)")
        #expect(try await command.stop() == 0)
    }

    /// Verification by header, query and body, through the Swift client; a misspelt key is a 400, not a condition
    /// left out.
    @Test func verificationByHeaderQueryAndBody() async throws {
        let folder = try TemporaryFolder.make("serve-verify-by")
        try Self.write(
            #"{"metadata": {"match": {"query": "ignore"}}, "#
                + #""request": {"method": "POST", "url": "\#(Self.origin)/orders"}, "response": {"status": 201}}"#,
            "order", in: folder)
        let (command, base, _) = try await ServeControlTests.serve(folder)
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let client = FixtureServerClient(baseURL: try #require(URL(string: base)), session: session)
        _ = try await Self.curl([
            "-X", "POST", "-H", "X-Client: ios", "-d", #"{"sku": "A-1", "qty": 2}"#, base + "/orders?coupon=SPRING",
        ])
        _ = try await Self.curl([
            "-X", "POST", "-H", "X-Client: web", "-d", #"{"sku": "B-2", "qty": 1}"#, base + "/orders",
        ])
        let ios = try await client.requireRequests(
            method: "POST", path: "/orders", count: 1,
            where: ServedRequestFilter(
                headers: ["x-client": "ios"], query: ["coupon": "SPRING"], jsonBody: #"{"sku": "A-1"}"#))
        #expect(ios.map(\.url) == ["/orders?coupon=SPRING"])
        try await client.requireRequests(
            method: "POST", path: "/orders", atLeast: 2, where: ServedRequestFilter(headers: [:]))
        await #expect {
            try await client.requireRequests(
                method: "POST", path: "/orders", count: 1, where: ServedRequestFilter(jsonBody: #"{"qty": 3}"#))
        } throws: { error in
            let error = error as? FixtureServerClientError
            return error?.status == 417 && error?.message.contains("found 0") == true
        }
        // A verification that names a credential never repeats it: the 417's message masks it.
        let secret = "tok-VERIFY-SECRET-4471"
        await #expect {
            try await client.requireRequests(
                method: "POST", path: "/orders", count: 1,
                where: ServedRequestFilter(headers: ["Authorization": "Bearer \(secret)"], query: ["api_key": secret]))
        } throws: { error in
            let message = (error as? FixtureServerClientError)?.message ?? ""
            return message.contains("found 0") && !message.contains(secret)
        }
        let misspelt = try await Self.curl([
            "-X", "POST", "-d", #"{"method": "POST", "path": "/orders", "count": 1, "header": {"X-Client": "ios"}}"#,
            base + "/__apiprobe/verify",
        ])
        #expect(misspelt.output.contains(#"found the key \"header\""#), "\(misspelt)")
        #expect(try await command.stop() == 0)
    }

    /// A request `serve` answers by its method and target alone (the same as one before, answered by a fixture
    /// that compared nothing else) gets what matching gives it: a sequence's next turn, every request in the log;
    /// and a fixture that reads a header keeps its route matched on each request.
    @Test func aRequestAnsweredByItsTargetAloneGetsWhatMatchingGives() async throws {
        let folder = try TemporaryFolder.make("serve-repeated")
        try Self.write(
            #"{"request": {"method": "GET", "url": "\#(Self.origin)/variant"}, "#
                + #""response": {"status": 200, "body": {"variant": "plain"}}}"#, "variant", in: folder)
        try Self.write(
            #"{"metadata": {"match": {"headerPatterns": {"X-Variant": "^beta$"}, "priority": 1}}, "#
                + #""request": {"method": "GET", "url": "\#(Self.origin)/variant"}, "#
                + #""response": {"status": 200, "body": {"variant": "beta"}}}"#, "variant-beta", in: folder)
        try Self.write(
            #"{"request": {"method": "GET", "url": "\#(Self.origin)/steps"}, "#
                + #""response": {"status": 200, "body": {"step": 1}}}"#, "steps", in: folder)
        try Self.write(
            #"{"request": {"method": "GET", "url": "\#(Self.origin)/steps"}, "#
                + #""response": {"status": 200, "body": {"step": 2}}}"#, "steps.2", in: folder)
        let (command, base, _) = try await ServeControlTests.serve(folder)
        var steps: [String] = []
        for _ in 0..<4 { steps.append(try await Self.curl([base + "/steps"]).output) }
        #expect(steps == [#"{"step":1}"#, #"{"step":2}"#, #"{"step":2}"#, #"{"step":2}"#])
        var variants: [String] = []
        for header in ["", "beta", "", "beta"] {
            variants.append(
                try await Self.curl((header.isEmpty ? [] : ["-H", "X-Variant: \(header)"]) + [base + "/variant"]).output
            )
        }
        #expect(
            variants == [
                #"{"variant":"plain"}"#, #"{"variant":"beta"}"#, #"{"variant":"plain"}"#, #"{"variant":"beta"}"#,
            ])
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let client = FixtureServerClient(baseURL: try #require(URL(string: base)), session: session)
        try await client.requireRequests(method: "GET", path: "/steps", count: 4)
        #expect(try await command.stop() == 0)
    }

    /// A negative duration is named as such, not "Missing value".
    @Test func aNegativeLatencyIsSaidToBeNegative() async throws {
        let run = try await CommandLineRunner.run(["serve", "--latency", "-5ms"])
        #expect(run.status == 2, "\(run)")
        #expect(run.standardError.contains("-5ms is negative: expected a duration of 0 or more"), "\(run)")
    }
}
