import Foundation
import HTTPFixtures
import HTTPStubs
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server's request answered by its key alone (`StubSet.answerRepeated`, what `apiprobe serve` asks first): the
/// same answer, turn and count as matching would give, and only where nothing but the method and URL decided it.
struct RepeatedAnswerTests {
    static let origin = StubRequest.Origin(URL(string: base)!)!
    static let originText = StubRequest.Origin.text(of: URL(string: base)!)

    /// A set as `serve` keeps it (no request log of its own), and a server's request for `target`.
    static func serverSet() -> StubSet {
        let set = StubSet()
        set.keepsRequestLog = false
        return set
    }

    static func request(_ target: String, method: String = "GET", headers: HeaderFields = [:]) throws -> (
        StubRequest, StubSet.ServedKey
    ) {
        let request = try #require(
            StubRequest(method: method, origin: origin, target: target, headers: headers, body: nil))
        let key = try #require(StubSet.ServedKey(origin: originText, method: method, target: target))
        return (request, key)
    }

    static func body(_ outcome: StubOutcome) -> String? {
        guard case .response(let wire, _, _, _) = outcome else { return nil }
        return String(decoding: wire.body, as: UTF8.self)
    }

    static func status(_ outcome: StubOutcome) -> Int? {
        guard case .response(let wire, _, _, _) = outcome else { return nil }
        return wire.status
    }

    static func body(_ answer: StubSet.RepeatedAnswer?) -> String? {
        answer.map { String(decoding: $0.wire.body, as: UTF8.self) }
    }

    @Test func aRepeatedRequestGetsTheNextTurnAndIsCounted() throws {
        let set = Self.serverSet()
        let handle = set.stub(.get(base + "/items"), responses: [.text("first"), .text("second")], name: "items")
        let (request, key) = try Self.request("/items")
        #expect(set.answerRepeated(key) == nil)
        #expect(Self.body(set.answer(request, repeatedAs: key)) == "first")
        #expect(Self.body(set.answerRepeated(key)) == "second")
        // The last turn repeats, as it does for a matched request.
        #expect(Self.body(set.answerRepeated(key)) == "second")
        #expect(set.answerRepeated(key)?.answeredBy == "items")
        #expect(set.hitCount(of: handle) == 4)
        // Another target, method or origin is another key.
        #expect(set.answerRepeated(try Self.request("/items?page=2").1) == nil)
        #expect(set.answerRepeated(try Self.request("/items", method: "HEAD").1) == nil)
        #expect(set.answerRepeated(try #require(.init(origin: "http://other", method: "GET", target: "/items"))) == nil)
    }

    @Test func aChangeToTheStubsForgetsTheAnswers() throws {
        let set = Self.serverSet()
        let old = set.stub(.get(base + "/items"), response: .text("old"))
        let (request, key) = try Self.request("/items")
        #expect(Self.body(set.answer(request, repeatedAs: key)) == "old")
        #expect(Self.body(set.answerRepeated(key)) == "old")
        // A newer stub of the same route answers from now on, by key too once matched again.
        set.stub(.get(base + "/items"), response: .text("new"))
        #expect(set.answerRepeated(key) == nil)
        #expect(Self.body(set.answer(request, repeatedAs: key)) == "new")
        #expect(Self.body(set.answerRepeated(key)) == "new")
        set.remove(old)
        #expect(set.answerRepeated(key) == nil)
        set.reset()
        #expect(set.answerRepeated(key) == nil)
    }

    /// A candidate that reads more than the URL (a header, a state), an answer that reads the request (a template,
    /// a computed one), a redirect the set follows, a HEAD answered from its GET: never answered by key.
    @Test func anAnswerOtherPartsCouldChangeIsNotRemembered() throws {
        let set = Self.serverSet()
        set.stub(.get(base + "/variant"), response: .text("plain"))
        set.stub(RequestMatcher.get(base + "/variant").header("X-Variant", "beta"), response: .text("beta"))
        let (plain, key) = try Self.request("/variant")
        #expect(Self.body(set.answer(plain, repeatedAs: key)) == "plain")
        #expect(set.answerRepeated(key) == nil)
        let (beta, _) = try Self.request("/variant", headers: ["X-Variant": "beta"])
        #expect(Self.body(set.answer(beta, repeatedAs: key)) == "beta")

        set.stub(.get(base + "/computed")) { request in .text(request.header("X-Name") ?? "none") }
        let (computed, computedKey) = try Self.request("/computed")
        #expect(Self.body(set.answer(computed, repeatedAs: computedKey)) == "none")
        #expect(set.answerRepeated(computedKey) == nil)

        set.stub(.get(base + "/moved"), response: .redirect(to: base + "/items"))
        set.stub(.get(base + "/items"), response: .text("items"))
        let (moved, movedKey) = try Self.request("/moved")
        #expect(Self.body(set.answer(moved, repeatedAs: movedKey)) == "items")
        #expect(set.answerRepeated(movedKey) == nil)

        // A 401 challenge, which a set renames or refuses on Linux.
        set.renamesAuthenticationChallenges = true
        set.stub(.get(base + "/private"), response: .status(401, headers: ["WWW-Authenticate": "Bearer"]))
        let (challenged, challengedKey) = try Self.request("/private")
        #expect(Self.status(set.answer(challenged, repeatedAs: challengedKey)) == 401)
        #expect(set.answerRepeated(challengedKey) == nil)

        set.stub(.get(base + "/page"), response: .text("page"))
        let (head, headKey) = try Self.request("/page", method: "HEAD")
        #expect(Self.body(set.answer(head, repeatedAs: headKey)) == "")
        #expect(set.answerRepeated(headKey) == nil)
    }

    /// A set that prepares its fixed responses for a server (`serve`'s fields and body buffer) still does after a
    /// reset: the preparation is the set's, not its stubs'.
    @Test func aResetSetStillPreparesItsResponses() throws {
        final class Prepared: Sendable {}
        let set = Self.serverSet()
        set.preparesWire = { _ in Prepared() }
        set.reset()
        set.stub(.get(base + "/items"), response: .text("items"))
        let (request, _) = try Self.request("/items")
        guard case .response(let wire, _, _, _) = set.answer(request) else {
            Issue.record("no answer")
            return
        }
        #expect(wire.prepared is Prepared)
    }

    /// A set that keeps its own log (a Swift test's) logs every request: it answers none by key.
    @Test func aSetThatLogsEachRequestAnswersNoneByKey() throws {
        let set = StubSet()
        set.stub(.get(base + "/items"), response: .text("items"))
        let (request, key) = try Self.request("/items")
        #expect(Self.body(set.answer(request, repeatedAs: key)) == "items")
        #expect(set.answerRepeated(key) == nil)
        #expect(set.log.count == 1)
    }

    /// A client that sends ever new targets costs bounded memory: past 4,096 the answers are forgotten, and
    /// remembered again. A target past 2,048 bytes has no key.
    @Test func rememberedAnswersAreBounded() throws {
        let set = Self.serverSet()
        set.stub(RequestMatcher().method("GET").url(base + "/items"), response: .text("items"))
        let (first, firstKey) = try Self.request("/items?n=0")
        #expect(Self.body(set.answer(first, repeatedAs: firstKey)) == "items")
        #expect(set.answerRepeated(firstKey) != nil)
        for number in 1...4_096 {
            let (request, key) = try Self.request("/items?n=\(number)")
            _ = set.answer(request, repeatedAs: key)
        }
        #expect(set.answerRepeated(firstKey) == nil)
        #expect(set.answerRepeated(try Self.request("/items?n=4096").1) != nil)
        #expect(
            StubSet.ServedKey(origin: base, method: "GET", target: "/" + String(repeating: "a", count: 2_048)) == nil)
    }
}
