import Foundation
import HTTPFixtures
import Testing

/// The redactor by value: a credential named once is masked wherever else it occurs.
struct SecretRedactionTests {
    static func json(_ text: String) -> JSONValue {
        // Test inputs are literals that parse.
        try! JSONValue(parsing: Data(text.utf8))
    }

    @Test func aCredentialEchoedInsideALargerStringIsMasked() {
        let exchange = Exchange(
            request: RecordedRequest(
                url: "https://api.example.com/me", headers: ["Authorization": "Bearer tok-ECHO-1"]),
            response: RecordedResponse(
                headers: ["X-Note": "you sent tok-ECHO-1"],
                body: .json(Self.json(#"{"echo": {"auth": "got Bearer tok-ECHO-1 here"}, "seen": "tok-ECHO-1!"}"#))))
        let redacted = exchange.redacted()
        #expect(
            redacted.response.body
                == .json(Self.json(#"{"echo": {"auth": "got REDACTED here"}, "seen": "REDACTED!"}"#)))
        #expect(redacted.response.headers["X-Note"] == "you sent REDACTED")
        #expect(
            redacted.metadata.redactions == [
                "request.headers.Authorization", "response.headers.X-Note", "response.body/echo/auth",
                "response.body/seen",
            ])
    }

    /// Issue 37, item 5: a redaction inside a JSON body is named by its JSON Pointer (it read `response.body`, which
    /// did not say that the token was inside `links[1].href`).
    @Test func aCredentialInsideABodyStringIsNamedByItsPointer() {
        let exchange = Exchange(
            request: RecordedRequest(url: "https://api.example.com/v1/items"),
            response: RecordedResponse(
                body: .json(
                    Self.json(
                        #"{"links": [{"href": "https://a/"}, {"href": "https://api.example.com/next?access_token=tok-LINK-7"}]}"#
                    ))))
        let redacted = exchange.redacted()
        #expect(redacted.metadata.redactions == ["response.body/links/1/href"])
        #expect(
            redacted.response.body
                == .json(
                    Self.json(
                        #"{"links": [{"href": "https://a/"}, {"href": "https://api.example.com/next?access_token=REDACTED"}]}"#
                    )))
    }

    /// Plaid's transfer `"authorization": {"id": …, "proposed_transfer": {"type": "credit"}}` is a resource named
    /// like a credential. Masking the whole object changed its type, and learning its words masked "credit" in every
    /// URL of the import (`/credit/bank_income/get` became `/REDACTED/bank_income/get`).
    @Test func anObjectUnderACredentialNameKeepsItsShapeAndItsWordsAreNotSecrets() {
        let redactor = Redactor()
        let authorize = Exchange(
            request: RecordedRequest(method: "POST", url: "https://sandbox.example.com/transfer/authorization/create"),
            response: RecordedResponse(
                body: .json(
                    Self.json(
                        #"{"authorization": {"id": "auth-1", "decision": "approved", "proposed_transfer": {"type": "credit"}, "token": "tok-NESTED-1"}, "password": ["pw-ONE-11", "pw-TWO-22"], "secret": null}"#
                    ))))
        let redacted = redactor.redact(authorize)
        #expect(
            redacted.response.body
                == .json(
                    Self.json(
                        #"{"authorization": {"id": "auth-1", "decision": "approved", "proposed_transfer": {"type": "credit"}, "token": "REDACTED"}, "password": ["REDACTED", "REDACTED"], "secret": null}"#
                    )))
        #expect(
            redacted.metadata.redactions == [
                "response.body/authorization/token", "response.body/password/0", "response.body/password/1",
            ])
        let income = redactor.redact(
            Exchange(
                request: RecordedRequest(
                    method: "POST", url: "https://sandbox.example.com/credit/bank_income/get",
                    body: .text("tok-NESTED-1 pw-TWO-22")),
                response: RecordedResponse()))
        #expect(income.request.url == "https://sandbox.example.com/credit/bank_income/get")
        #expect(income.request.body == .text("REDACTED REDACTED"))
    }

    @Test func bodyKeysMatchInAnyCaseAndSeparatorStyle() {
        let body = Self.json(
            #"""
            {"Password": "v-password", "API_KEY": "v-api-key", "apiKey": "v-apikey", "access-token": "v-at",
             "AccessToken": "v-at2", "refresh_token": "v-rt", "clientSecret": "v-cs", "JWT": "v-jwt",
             "private_key": "v-pk", "privateKey": "v-pk2", "secret": "v-secret", "Token": "v-token",
             "tokenCount": 3, "keyword": "soup"}
            """#)
        let redacted = Exchange(
            request: RecordedRequest(url: "https://x.example/"), response: RecordedResponse(body: .json(body))
        ).redacted()
        guard case .json(let value)? = redacted.response.body, case .object(let members) = value else {
            Issue.record("the body should stay a JSON object")
            return
        }
        let masked = members.filter { $0.value == .string("REDACTED") }.map(\.key)
        #expect(
            masked == [
                "Password", "API_KEY", "apiKey", "access-token", "AccessToken", "refresh_token", "clientSecret", "JWT",
                "private_key", "privateKey", "secret", "Token",
            ])
        #expect(value.value(at: "/tokenCount") == .number("3"))
        #expect(value.value(at: "/keyword") == .string("soup"))
    }

    @Test func credentialHeadersAreMaskedButNotAccessControlAllowCredentials() {
        let exchange = Exchange(
            request: RecordedRequest(
                url: "https://x.example/",
                headers: [
                    "X-Auth-Key": "v-auth-key", "Ocp-Apim-Subscription-Key": "v-apim", "X-Session-Id": "v-session",
                    "Proxy-Authorization": "Basic dXNlcjpwcm94eXBhc3M=",
                ]),
            response: RecordedResponse(
                headers: [
                    "Access-Control-Allow-Credentials": "true", "Set-Cookie2": "a=v-cookie2",
                    "Access-Control-Allow-Headers": "Authorization, X-Auth-Key",
                ],
                body: .json(Self.json(#"{"ok": true, "note": "proxypass and v-session"}"#))))
        let redacted = exchange.redacted()
        #expect(
            redacted.request.headers == [
                "X-Auth-Key": "REDACTED", "Ocp-Apim-Subscription-Key": "REDACTED", "X-Session-Id": "REDACTED",
                "Proxy-Authorization": "REDACTED",
            ])
        #expect(
            redacted.response.headers == [
                "Access-Control-Allow-Credentials": "true", "Set-Cookie2": "REDACTED",
                "Access-Control-Allow-Headers": "Authorization, X-Auth-Key",
            ])
        // The Basic credential's password, decoded, is a secret too; `true` never is.
        #expect(redacted.response.body == .json(Self.json(#"{"ok": true, "note": "REDACTED and REDACTED"}"#)))
    }

    @Test func userInfoAndCredentialFragmentsAreMasked() {
        let exchange = Exchange(
            request: RecordedRequest(
                url: "https://ann:hunter22@api.example.com/cb?q=1#access_token=frag-TOKEN-1&state=xyz"),
            response: RecordedResponse(body: .text("hello ann:hunter22, hunter22, frag-TOKEN-1")))
        let redacted = exchange.redacted()
        #expect(redacted.request.url == "https://REDACTED@api.example.com/cb?q=1#access_token=REDACTED&state=xyz")
        #expect(redacted.response.body == .text("hello REDACTED, REDACTED, REDACTED"))
        #expect(
            redacted.metadata.redactions == ["request.userinfo", "request.fragment.access_token", "response.body"])
        let redactor = Redactor()
        #expect(redactor.redactURL("http://user:pass@host:9091") == "http://REDACTED@host:9091")
        #expect(redactor.redactURL("/api/x?api_key=k-1&page=2") == "/api/x?api_key=REDACTED&page=2")
    }

    @Test func secretsInBodiesThatAreNotJSONAreMasked() {
        let deep =
            String(repeating: "{\"a\":", count: 600) + #"{"refreshToken": "deep-SECRET-1", "n": 1}"#
            + String(repeating: "}", count: 600)
        let multipart =
            "--b\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nann\r\n"
            + "--b\r\nContent-Disposition: form-data; name=\"Password\"\r\nContent-Type: text/plain\r\n\r\nmp-SECRET-2\r\n--b--\r\n"
        let exchange = Exchange(
            request: RecordedRequest(
                method: "POST", url: "https://x.example/form",
                headers: ["Content-Type": "multipart/form-data; boundary=b"], body: .text(multipart)),
            response: RecordedResponse(
                headers: ["Content-Type": "text/html"],
                body: .text("<p>deep-SECRET-1</p><p>mp-SECRET-2</p><a href=\"/x?token=abc\">x</a>")))
        let redacted = exchange.redacted()
        guard case .text(let request)? = redacted.request.body else {
            Issue.record("the multipart body should stay text")
            return
        }
        #expect(!request.contains("mp-SECRET-2") && request.contains("name=\"user\"\r\n\r\nann"))
        #expect(
            redacted.response.body
                == .text("<p>deep-SECRET-1</p><p>REDACTED</p><a href=\"/x?token=REDACTED\">x</a>"))

        // JSON nested past the reader's limit is text; its credential members are masked by name.
        let deepExchange = Exchange(
            request: RecordedRequest(url: "https://x.example/"),
            response: RecordedResponse(body: FixtureBody(bytes: Data(deep.utf8), contentType: "application/json")))
        guard case .text = deepExchange.response.body else {
            Issue.record("the deep body should be text for this test to mean anything")
            return
        }
        let deepRedacted = String(decoding: deepExchange.redacted().encoded(), as: UTF8.self)
        #expect(!deepRedacted.contains("deep-SECRET-1"))
        #expect(deepRedacted.contains(#"\"refreshToken\": \"REDACTED\""#))
    }

    @Test func shortValuesAndNumbersAreMaskedByNameOnly() {
        let exchange = Exchange(
            request: RecordedRequest(url: "https://x.example/?key=abc", headers: ["X-Api-Key": "8080"]),
            response: RecordedResponse(body: .json(Self.json(#"{"abc": "abc", "port": "8080"}"#))))
        let redacted = exchange.redacted()
        #expect(redacted.request.url == "https://x.example/?key=REDACTED")
        #expect(redacted.request.headers["X-Api-Key"] == "REDACTED")
        #expect(redacted.response.body == .json(Self.json(#"{"abc": "abc", "port": "8080"}"#)))
    }

    @Test func knownValuesKeepTheirReplacementInsideLongerOnes() {
        let redactor = Redactor()
        redactor.learn("env-TOKEN-1", as: "${TOKEN}")
        redactor.learnHeaders(["Authorization": "Bearer env-TOKEN-1"])
        #expect(
            redactor.redact(text: #"/headers/Authorization == "Bearer env-TOKEN-1", found "Bearer env-TOKEN-1""#)
                == #"/headers/Authorization == "Bearer ${TOKEN}", found "Bearer ${TOKEN}""#)
        // As JSON, XML and URLs write it.
        redactor.learn(#"q"u<o>te&"#)
        #expect(
            redactor.redact(text: #"a q\"u<o>te& b q&quot;u&lt;o&gt;te&amp; c q%22u%3Co%3Ete%26"#)
                == "a REDACTED b REDACTED c REDACTED")
    }

    @Test func onlyTheLatestCredentialsMetInTrafficAreKeptButEnvironmentValuesStay() {
        let redactor = Redactor()
        redactor.learn("env-VALUE-1", as: "${ENV}")
        for index in 0...SecretValues.maximumLearned {
            redactor.learnHeaders(["Set-Cookie": "session=cookie-\(index)-x; HttpOnly"])
        }
        #expect(
            redactor.redact(text: "env-VALUE-1 cookie-0-x cookie-\(SecretValues.maximumLearned)-x")
                == "${ENV} cookie-0-x REDACTED")
    }

    @Test func maskingTextKeepsItsEscapesWhole() {
        let redactor = Redactor()
        let prometheus = #"apiprobe_check_passed{check="/url == \"/x?token=REDACTED\"",endpoint="a"} 0"#
        #expect(redactor.redact(text: prometheus) == prometheus)
        #expect(
            redactor.redact(text: #"{"check": "/u == \"/x?api_key=k-123\"", "url": "http://ann:pw-99@h/x"}"#)
                == #"{"check": "/u == \"/x?api_key=REDACTED\"", "url": "http://REDACTED@h/x"}"#)
    }
}
