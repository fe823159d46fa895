import Foundation
import HTTPFixtures
import Testing

struct RedactionTests {
    static func json(_ text: String) -> JSONValue {
        // Test inputs are literals that parse.
        try! JSONValue(parsing: Data(text.utf8))
    }

    static let secretExchange = Exchange(
        request: RecordedRequest(
            method: "POST",
            url: "https://api.example.com/api/login?q=soup&key=SECRET-KEY-1&api_key=SECRET-KEY-2&page=2#top",
            headers: [
                "Authorization": "Bearer SECRET-BEARER",
                "Cookie": "session=SECRET-COOKIE",
                "X-API-Key": "SECRET-HEADER-KEY",
                "X-Auth-Token": "SECRET-AUTH-TOKEN",
                "Referer": "https://app.example.com/page?access_token=SECRET-REFERER",
                "Accept": "application/json",
            ],
            body: .json(json(#"{"user": "ann", "password": "SECRET-PASSWORD", "profile": {"ssn": "SECRET-SSN"}}"#))
        ),
        response: RecordedResponse(
            status: 200,
            headers: ["Set-Cookie": "sid=SECRET-SET-COOKIE; HttpOnly", "Content-Type": "application/json"],
            body: .json(
                json(
                    #"{"user": {"name": "Ann", "token": "SECRET-RESPONSE-TOKEN"}, "items": [{"secret": "S1"}, {"secret": "S2"}], "access_token": "SECRET-ACCESS"}"#
                ))
        )
    )

    static let policy = RedactionPolicy.default.redactingBodyKeys(["ssn"]).redactingBodyPointers([
        "/user/token", "/items/*/secret",
    ])

    @Test func defaultPolicyRedactsCredentialHeadersAndQueryParameters() throws {
        let redacted = Self.secretExchange.redacted()
        #expect(
            redacted.request.url == "https://api.example.com/api/login?q=soup&key=REDACTED&api_key=REDACTED&page=2#top")
        #expect(redacted.request.headers["Authorization"] == "REDACTED")
        #expect(redacted.request.headers["Cookie"] == "REDACTED")
        #expect(redacted.request.headers["X-API-Key"] == "REDACTED")
        #expect(redacted.request.headers["X-Auth-Token"] == "REDACTED")
        #expect(redacted.request.headers["Referer"] == "https://app.example.com/page?access_token=REDACTED")
        #expect(redacted.request.headers["Accept"] == "application/json")
        #expect(redacted.response.headers["Set-Cookie"] == "REDACTED")
        #expect(redacted.response.headers["Content-Type"] == "application/json")
    }

    /// A credential in a URL inside a response header (a paging `Link`, a `Location`, a `Refresh`) is masked as
    /// in a request URL, and the value it had is then masked wherever else it appears.
    @Test func credentialsInTheURLsOfURLBearingHeadersAreMasked() throws {
        let exchange = Exchange(
            request: RecordedRequest(url: "https://api.example.com/items"),
            response: RecordedResponse(
                status: 200,
                headers: [
                    "Link":
                        #"<https://api.example.com/items?page=2&access_token=LINK-SECRET-1>; rel="next", <https://api.example.com/items?page=9&access_token=LINK-SECRET-1>; rel="last""#,
                    "Content-Location": "https://api.example.com/items?sig=CL-SECRET-2",
                    "Refresh": "5; url='https://u:REFRESH-SECRET-3@api.example.com/done'",
                    "X-Echo": "LINK-SECRET-1",
                ],
                body: .text("next page: https://api.example.com/items?page=2&access_token=LINK-SECRET-1")))
        let redacted = Redactor().redact(exchange)
        #expect(
            redacted.response.headers["Link"]
                == #"<https://api.example.com/items?page=2&access_token=REDACTED>; rel="next", <https://api.example.com/items?page=9&access_token=REDACTED>; rel="last""#
        )
        #expect(redacted.response.headers["Content-Location"] == "https://api.example.com/items?sig=REDACTED")
        #expect(redacted.response.headers["Refresh"] == "5; url='https://REDACTED@api.example.com/done'")
        #expect(redacted.response.headers["X-Echo"] == "REDACTED")
        let bytes = String(decoding: redacted.encoded(), as: UTF8.self)
        for secret in ["LINK-SECRET-1", "CL-SECRET-2", "REFRESH-SECRET-3"] { #expect(!bytes.contains(secret)) }
        #expect(
            redacted.metadata.redactions.filter { $0.hasPrefix("response.headers") } == [
                "response.headers.Content-Location", "response.headers.Link", "response.headers.Refresh",
                "response.headers.X-Echo",
            ])
    }

    @Test func bodyFieldsAreRedactedByNameAnywhereAndByPointer() throws {
        let redacted = Self.secretExchange.redacted(using: Self.policy)
        guard case .json(let request) = redacted.request.body, case .json(let response) = redacted.response.body else {
            Issue.record("bodies should stay JSON")
            return
        }
        #expect(request.value(at: "/password") == .string("REDACTED"))
        #expect(request.value(at: "/profile/ssn") == .string("REDACTED"))
        #expect(request.value(at: "/user") == .string("ann"))
        #expect(response.value(at: "/user/token") == .string("REDACTED"))
        #expect(response.value(at: "/user/name") == .string("Ann"))
        #expect(response.value(at: "/items/1/secret") == .string("REDACTED"))
        #expect(response.value(at: "/access_token") == .string("REDACTED"))
    }

    @Test func metadataListsEveryRedactedPlaceInAFixedOrder() {
        let redacted = Self.secretExchange.redacted(using: Self.policy)
        #expect(
            redacted.metadata.redactions == [
                "request.query.key", "request.query.api_key",
                "request.headers.Authorization", "request.headers.Cookie", "request.headers.Referer",
                "request.headers.X-API-Key", "request.headers.X-Auth-Token",
                "request.body/password", "request.body/profile/ssn",
                "response.headers.Set-Cookie",
                "response.body/user/token", "response.body/items/0/secret", "response.body/items/1/secret",
                "response.body/access_token",
            ])
    }

    @Test func noSecretSurvivesInTheEncodedBytes() {
        let text = String(decoding: Self.secretExchange.redacted(using: Self.policy).encoded(), as: UTF8.self)
        for secret in ["SECRET", "S1", "S2"] {
            #expect(!text.contains("\"\(secret)") && !text.contains(secret + "-"), "found \(secret) in\n\(text)")
        }
        #expect(!text.contains("SECRET"))
    }

    @Test func redactionIsDeterministicAndIdempotent() {
        let once = Self.secretExchange.redacted(using: Self.policy)
        let twice = once.redacted(using: Self.policy)
        #expect(once.encoded() == Self.secretExchange.redacted(using: Self.policy).encoded())
        #expect(twice.encoded() == once.encoded())
    }

    @Test func formEncodedBodiesAreRedacted() {
        let exchange = Exchange(
            request: RecordedRequest(
                method: "POST", url: "https://x.example/token",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: .text("grant_type=password&username=ann&password=hunter2&client_secret=abc")),
            response: RecordedResponse(status: 200)
        )
        let redacted = exchange.redacted()
        #expect(
            redacted.request.body == .text("grant_type=password&username=ann&password=REDACTED&client_secret=REDACTED"))
        #expect(redacted.metadata.redactions == ["request.form.password", "request.form.client_secret"])
    }

    @Test func percentEncodedParameterNamesAreRecognised() {
        let exchange = Exchange(
            request: RecordedRequest(url: "https://x.example/?api%5Fkey=abc&q=1"), response: RecordedResponse())
        #expect(exchange.redacted().request.url == "https://x.example/?api%5Fkey=REDACTED&q=1")
    }

    @Test func aCustomMarkerAndTheEmptyPolicy() {
        var policy = RedactionPolicy.default
        policy.marker = "<hidden>"
        #expect(Self.secretExchange.redacted(using: policy).request.headers["Authorization"] == "<hidden>")
        let untouched = Self.secretExchange.redacted(using: .none)
        #expect(untouched.request == Self.secretExchange.request)
        #expect(untouched.metadata.redactions.isEmpty)
    }
}
