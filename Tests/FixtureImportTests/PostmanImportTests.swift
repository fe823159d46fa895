import FixtureImport
import Foundation
import HTTPFixtures
import Testing

/// A Postman collection v2.1 with folders, variables, inherited and per-request auth, examples saved with
/// and without an `originalRequest`, a non-JSON body and a request with no example.
@Suite struct PostmanImportTests {
    static let collectionURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/github.postman_collection.json")

    func collection(variables: [String: String] = [:]) throws -> PostmanCollection {
        try PostmanCollection(
            parsing: Data(contentsOf: Self.collectionURL), file: "github.postman_collection.json",
            variables: variables)
    }

    @Test func everySavedExampleIsAFixtureNamedAfterItsRequest() throws {
        let collection = try collection()
        #expect(collection.name == "GitHub REST (sample)")
        #expect(
            collection.entries.map(\.name) == [
                "list-repository-issues", "list-repository-issues.2", "get-a-repository", "get-a-repository.2",
            ])
        #expect(collection.entries.map(\.pointer).first == "/item/0/item/0/response/0")
        #expect(collection.skipped == ["/item/0/item/1 (Delete a label): no saved example response"])

        let first = collection.entries[0].exchange
        #expect(first.request.method == "GET")
        #expect(first.request.url == "https://api.github.com/repos/apple/swift/issues?state=open&page=1")
        #expect(first.response.status == 200)
        #expect(first.response.headers == ["Content-Type": "application/json; charset=utf-8"])  // no Content-Length
        guard case .json(let body)? = first.response.body else {
            Issue.record("expected a JSON body, got \(String(describing: first.response.body))")
            return
        }
        #expect(body.value(at: "/0/title") == .string("Crash"))
        #expect(first.metadata.source == "postman")
        // The not-found example keeps its text body.
        #expect(collection.entries[3].exchange.response.body == .text("Not Found"))
        #expect(collection.entries[3].exchange.response.status == 404)
    }

    @Test func authIsRecordedAsTheCredentialItSendsAndRedacted() throws {
        let entries = try collection().entries
        // Inherited from the collection: a bearer token, masked.
        #expect(entries[0].exchange.request.headers["Authorization"] == "REDACTED")
        #expect(entries[0].exchange.metadata.redactions.contains("request.headers.Authorization"))
        // The request's own API key header.
        #expect(entries[2].exchange.request.headers["X-Api-Key"] == "REDACTED")
        let bytes = entries.map { String(decoding: $0.exchange.encoded(), as: UTF8.self) }.joined()
        #expect(!bytes.contains("ghp_collectionDefaultToken0000000000"))
        #expect(!bytes.contains("apikey-9f8e7d6c5b4a"))
    }

    @Test func variablesGivenToTheImportWinAndAreMaskedWhenTheyAreCredentials() throws {
        let entries = try collection(
            variables: [
                "baseUrl": "https://github.example.com/api/v3", "githubToken": "ghp_fromTheEnvironment00000000",
            ]
        ).entries
        #expect(entries[0].exchange.request.url.hasPrefix("https://github.example.com/api/v3/repos/apple/swift/"))
        let bytes = entries.map { String(decoding: $0.exchange.encoded(), as: UTF8.self) }.joined()
        #expect(!bytes.contains("ghp_fromTheEnvironment00000000"))
        #expect(bytes.contains("https://github.example.com/api/v3"))  // a base URL is no secret
    }

    @Test func aVariableWithNoValueIsBadInputNamingIt() throws {
        let text = #"""
            {"info": {"name": "x", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
             "item": [{"name": "a", "request": {"method": "GET", "url": "{{host}}/a"},
                       "response": [{"name": "ok", "code": 200, "body": "{}"}]}]}
            """#
        let error = #expect(throws: InputError.self) {
            try PostmanCollection(parsing: Data(text.utf8), file: "c.json")
        }
        #expect(
            error?.description
                == "c.json: /item/0/request/url: expected a value for the variable {{host}} (in the collection's \"variable\" list, or --var host=…), found none"
        )
    }

    @Test(arguments: [
        (#"{"info": {"name": "x"}}"#, #"c.json: /item: expected a "item" field, found nothing"#),
        (#"[1]"#, #"c.json: /: expected a Postman collection (an object with "info" and "item"), found array of 1"#),
        (
            #"{"info": {"name": "x", "schema": "https://schema.getpostman.com/json/collection/v1.0.0/collection.json"}, "item": []}"#,
            #"c.json: /info/schema: expected a Postman collection of format v2.1 or v2.0 (export it as Collection v2.1), found string "https://schema.getpostman.com/json/collection/v1.0.0/collection.json""#
        ),
        (
            #"{"info": {"name": "x"}, "item": [{"name": "a", "request": {"method": "GET", "url": "https://h/a"}, "response": [{"code": "200"}]}]}"#,
            #"c.json: /item/0/response/0/code: expected an integer status, found string "200""#
        ),
        (
            #"{"info": {"name": "x"}, "item": [{"name": "a", "request": {"method": "GE T", "url": "https://h/a"}, "response": [{"code": 200}]}]}"#,
            #"c.json: /item/0/request/method: expected an HTTP method (a token such as GET or POST), found string "GE T""#
        ),
        (#"{"info": {"name": "x"}, "item": [}"#, "c.json:1:34: expected a JSON value, found '}'"),
    ])
    func malformedCollectionsNameThePlace(text: String, message: String) {
        let error = #expect(throws: InputError.self) {
            try PostmanCollection(parsing: Data(text.utf8), file: "c.json")
        }
        #expect(error?.description == message)
    }

    /// Plaid's collection saves 47 of its 102 examples with neither `code` nor `status` (Postman's schema allows
    /// it); one collection without them stopped the import (exit 2).
    @Test func examplesWithoutAStatusCodeTakeTheirReasonPhrasesStatusWithAWarning() throws {
        let text = #"""
            {"info": {"name": "x"},
             "item": [
               {"name": "a", "request": {"method": "POST", "url": "https://h/a"},
                "response": [{"name": "OK", "body": "{}"}, {"name": "x", "status": "Not Found", "body": "{}"}]},
               {"name": "b", "request": {"method": "POST", "url": "https://h/b"},
                "response": [{"name": "Success", "body": "{}"}, {"name": "ok", "body": "{}"}]}]}
            """#
        let collection = try PostmanCollection(parsing: Data(text.utf8), file: "c.json")
        #expect(collection.entries.map(\.exchange.response.status) == [200, 404, 200, 200])
        #expect(
            collection.warnings == [
                #"2 saved examples have no status code (first: /item/0/response/0 (in /item/0 (a))): stored as 200, from its reason phrase "OK""#,
                #"1 saved example has no status code (first: /item/0/response/1 (in /item/0 (a))): stored as 404, from its reason phrase "Not Found""#,
                "1 saved example has no status code (first: /item/1/response/0 (in /item/1 (b))): stored as 200, as none of its texts names one",
            ])
    }

    /// Plaid's "List transfer events" example was saved for `{{baseUrl}}/transfer/event/list`, a variable the
    /// collection never defines, while its request is `https://{{env_url}}/…`: the example answers that request.
    @Test func anExampleWhoseRequestNamesAnUndefinedBaseAnswersTheItemsRequest() throws {
        let text = #"""
            {"info": {"name": "x"}, "variable": [{"key": "env_url", "value": "sandbox.example.com"}],
             "item": [{"name": "List events", "request": {"method": "POST", "url": "https://{{env_url}}/transfer/event/list"},
                       "response": [{"name": "OK", "code": 200, "body": "{}",
                                     "originalRequest": {"method": "POST", "url": {"raw": "{{baseUrl}}/transfer/event/list",
                                       "host": ["{{baseUrl}}"], "path": ["transfer", "event", "list"]}}}]}]}
            """#
        let collection = try PostmanCollection(parsing: Data(text.utf8), file: "c.json")
        #expect(collection.entries.map(\.exchange.request.url) == ["https://sandbox.example.com/transfer/event/list"])
        #expect(
            collection.warnings == [
                #"/item/0/response/0/originalRequest (in /item/0 (List events)): expected a value for the variable {{baseUrl}} (in the collection's "variable" list, or --var baseUrl=…), found none; the request's own URL is used for this example"#
            ])
    }

    @Test func anExchangeCanBeBuiltFromRawPartsForAConverterOfOneself() {
        let exchange = Exchange(
            method: "post", url: "https://api.example.com/items?key=k-123456",
            requestHeaders: ["Content-Type": "application/json"], requestBody: Data(#"{"name":"x"}"#.utf8),
            status: 201, responseHeaders: ["Content-Type": "text/plain"], responseBody: Data("created".utf8),
            source: "my-proxy", recordedAt: "2026-11-24T03:00:00Z")
        #expect(exchange.request.method == "POST")
        #expect(exchange.request.body == .json(.object([(key: "name", value: .string("x"))])))
        #expect(exchange.response.body == .text("created"))
        #expect(exchange.metadata.source == "my-proxy")
        #expect(exchange.metadata.recordedAt == "2026-11-24T03:00:00Z")
        let safe = Redactor().redact(exchange)
        #expect(safe.request.url == "https://api.example.com/items?key=REDACTED")
    }

    /// Postman v2.0 writes `auth` as objects (`"bearer": {"token": …}`), v2.1 as lists: both give the header the
    /// request sends; OAuth 2's saved token is sent as a bearer; a scheme that signs each request is warned, once
    /// per request; `noauth` stops what a request would inherit (issue 37, item 2). Before, the object form gave
    /// no header and no word.
    @Test func everyAuthFormGivesWhatTheRequestSends() throws {
        let text = #"""
            {"info": {"name": "x", "schema": "https://schema.getpostman.com/json/collection/v2.0.0/collection.json"},
             "auth": {"type": "bearer", "bearer": {"token": "tok-object-form-5521"}},
             "item": [
               {"name": "inherits", "request": {"method": "GET", "url": "https://h/a"},
                "response": [{"name": "ok", "code": 200, "body": "{}"}]},
               {"name": "basic", "request": {"method": "GET", "url": "https://h/b",
                  "auth": {"type": "basic", "basic": {"username": "ann", "password": "pw-object-7781"}}},
                "response": [{"name": "ok", "code": 200, "body": "{}"}]},
               {"name": "oauth", "request": {"method": "GET", "url": "https://h/c",
                  "auth": {"type": "oauth2", "oauth2": [{"key": "accessToken", "value": "oauth-token-1234"},
                                                         {"key": "addTokenTo", "value": "header"}]}},
                "response": [{"name": "ok", "code": 200, "body": "{}"}]},
               {"name": "query key", "request": {"method": "GET", "url": "https://h/d",
                  "auth": {"type": "apikey", "apikey": {"key": "api_key", "value": "key-object-9090", "in": "query"}}},
                "response": [{"name": "ok", "code": 200, "body": "{}"}]},
               {"name": "signed", "request": {"method": "GET", "url": "https://h/e",
                  "auth": {"type": "awsv4", "awsv4": {"accessKey": "AKIA0000", "secretKey": "s3cr3t-aws-0000"}}},
                "response": [{"name": "ok", "code": 200, "body": "{}"}]},
               {"name": "public", "request": {"method": "GET", "url": "https://h/f", "auth": {"type": "noauth"}},
                "response": [{"name": "ok", "code": 200, "body": "{}"}]}]}
            """#
        let collection = try PostmanCollection(parsing: Data(text.utf8), file: "c.json")
        let requests = collection.entries.map(\.exchange.request)
        #expect(requests.map { $0.headers["Authorization"] } == ["REDACTED", "REDACTED", "REDACTED", nil, nil, nil])
        #expect(requests[3].url == "https://h/d?api_key=REDACTED")
        #expect(
            collection.warnings.contains {
                $0.contains("(signed): auth type awsv4 signs each request") && $0.contains("recorded without it")
            }, "\(collection.warnings)")
        let bytes =
            collection.entries.map { String(decoding: $0.exchange.encoded(), as: UTF8.self) }.joined()
            + collection.warnings.joined()
        for secret in [
            "tok-object-form-5521", "pw-object-7781", "oauth-token-1234", "key-object-9090", "s3cr3t-aws-0000",
        ] {
            #expect(!bytes.contains(secret), "\(secret)")
        }
    }

    @Test func aVersionOneCollectionIsNamedAsSuch() throws {
        let text =
            #"{"id": "1", "name": "old", "order": [], "requests": [{"id": "r", "url": "https://h/a", "method": "GET"}]}"#
        let error = #expect(throws: InputError.self) {
            try PostmanCollection(parsing: Data(text.utf8), file: "c.json")
        }
        #expect(error?.found == #"a collection of format v1 ("requests" and no "info")"#)
        #expect(error?.expected.contains("export it as Collection v2.1") == true)
    }
}
