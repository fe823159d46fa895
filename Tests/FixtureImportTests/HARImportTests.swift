import FixtureImport
import Foundation
import HTTPFixtures
import Testing

/// A small HAR document builder for tests.
enum HAR {
    static func entry(
        method: String = "GET",
        url: String,
        requestHeaders: [(String, String)] = [],
        status: String = "200",
        responseHeaders: [(String, String)] = [("Content-Type", "application/json")],
        mimeType: String = "application/json",
        text: String? = nil,
        encoding: String? = nil
    ) -> String {
        func headers(_ list: [(String, String)]) -> String {
            "[" + list.map { #"{"name": \#(quote($0.0)), "value": \#(quote($0.1))}"# }.joined(separator: ", ") + "]"
        }
        var content = #""size": 0, "mimeType": \#(quote(mimeType))"#
        if let text { content += #", "text": \#(quote(text))"# }
        if let encoding { content += #", "encoding": \#(quote(encoding))"# }
        return """
            {"startedDateTime": "2026-11-22T18:00:00.000Z", "time": 12,
             "request": {"method": \(quote(method)), "url": \(quote(url)), "httpVersion": "HTTP/1.1",
                         "headers": \(headers(requestHeaders)), "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": \(status), "statusText": "", "httpVersion": "HTTP/1.1", "headers": \(headers(responseHeaders)),
                          "cookies": [], "content": {\(content)}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
             "cache": {}, "timings": {"send": 0, "wait": 10, "receive": 2}}
            """
    }

    static func document(_ entries: [String]) -> Data {
        Data(
            #"{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [\#(entries.joined(separator: ",\n"))]}}"#
                .utf8)
    }

    static func quote(_ text: String) -> String {
        String(decoding: JSONValue.string(text).serialized(), as: UTF8.self)
    }
}

struct HARImportTests {
    @Test func eachEntryBecomesANamedRedactedExchange() throws {
        let data = HAR.document([
            HAR.entry(
                url: "https://api.example.com/api/search?q=chicken&key=SECRET-KEY",
                requestHeaders: [("Authorization", "Bearer SECRET"), (":authority", "api.example.com")],
                responseHeaders: [
                    ("Content-Type", "application/json"), ("Content-Encoding", "gzip"), ("Set-Cookie", "a=SECRET"),
                ],
                text: #"{"count": 0, "recipes": []}"#),
            HAR.entry(url: "https://api.example.com/api/get?rId=35382", text: #"{"recipe": {"title": "Tacos"}}"#),
        ])
        let archive = try HARArchive(parsing: data, file: "session.har")
        try #require(archive.entries.count == 2)
        let search = archive.entries[0]
        #expect(search.name == "get-api-search")
        #expect(search.host == "api.example.com")
        #expect(search.exchange.request.url == "https://api.example.com/api/search?q=chicken&key=REDACTED")
        #expect(search.exchange.request.headers == ["Authorization": "REDACTED"])
        #expect(search.exchange.response.headers == ["Content-Type": "application/json", "Set-Cookie": "REDACTED"])
        #expect(search.exchange.response.body == .json(.object([("count", .number("0")), ("recipes", .array([]))])))
        #expect(search.exchange.metadata.source == "har")
        #expect(search.exchange.metadata.recordedAt == "2026-11-22T18:00:00.000Z")
        #expect(
            search.exchange.metadata.redactions == [
                "request.query.key", "request.headers.Authorization", "response.headers.Set-Cookie",
            ])
        #expect(archive.entries[1].name == "get-api-get")
        #expect(!String(decoding: search.exchange.encoded(), as: UTF8.self).contains("SECRET"))
    }

    /// A second request to the same method and path is a second sample of one endpoint: `.2`, not a new one.
    @Test func repeatedNamesBecomeSamplesOfOneEndpoint() throws {
        let data = HAR.document([
            HAR.entry(url: "https://api.example.com/api/search?q=a", text: "{}"),
            HAR.entry(url: "https://api.example.com/api/search?q=b", text: "{}"),
            HAR.entry(method: "POST", url: "https://api.example.com/api/search", text: "{}"),
            HAR.entry(url: "https://api.example.com/api/search?q=c", text: "{}"),
            HAR.entry(url: "https://api.example.com/", text: "{}"),
            HAR.entry(url: "http://localhost:8080/api/search", text: "{}"),
        ])
        let archive = try HARArchive(parsing: data, file: "session.har")
        #expect(
            archive.entries.map(\.name) == [
                "get-api-search", "get-api-search.2", "post-api-search", "get-api-search.3", "get-root",
                "get-api-search",
            ])
        #expect(archive.entries.map(\.host).last == "localhost_8080")
    }

    @Test func base64ContentIsDecoded() throws {
        let json = Data(#"{"ok": true}"#.utf8).base64EncodedString()
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
        let data = HAR.document([
            HAR.entry(url: "https://a.example/data", text: json, encoding: "base64"),
            HAR.entry(
                url: "https://a.example/logo.png", responseHeaders: [("Content-Type", "image/png")],
                mimeType: "image/png", text: png.base64EncodedString(), encoding: "base64"),
            HAR.entry(
                url: "https://a.example/page", responseHeaders: [("Content-Type", "text/html")], mimeType: "text/html",
                text: "<p>hi</p>"),
        ])
        let archive = try HARArchive(parsing: data, file: "s.har")
        #expect(archive.entries[0].exchange.response.body == .json(.object([("ok", .bool(true))])))
        #expect(archive.entries[1].exchange.response.body == .binary(png))
        #expect(archive.entries[2].exchange.response.body == .text("<p>hi</p>"))
    }

    @Test func entriesWithoutAResponseAreSkipped() throws {
        let data = HAR.document([
            HAR.entry(url: "https://a.example/x", status: "0"),
            HAR.entry(url: "https://a.example/y", text: "{}"),
        ])
        let archive = try HARArchive(parsing: data, file: "s.har")
        #expect(archive.entries.map(\.name) == ["get-y"])
        #expect(archive.entries.first?.index == 1)
        #expect(archive.skipped == ["/log/entries/0: status 0 (no response)"])
    }

    @Test func callerNamedBodyFieldsAreRedacted() throws {
        let data = HAR.document([
            HAR.entry(url: "https://a.example/me", text: #"{"email": "ann@example.com", "name": "Ann"}"#)
        ])
        let archive = try HARArchive(parsing: data, file: "s.har", redactingWith: .default.redactingBodyKeys(["email"]))
        #expect(
            archive.entries[0].exchange.response.body
                == .json(.object([("email", .string("REDACTED")), ("name", .string("Ann"))])))
        #expect(archive.entries[0].exchange.metadata.redactions == ["response.body/email"])
    }

    static let malformed: [(data: Data, message: String)] = [
        (Data("{\"log\": ".utf8), "session.har:1:9: expected a JSON value, found end of file"),
        (Data("{}".utf8), "session.har: /log: expected a \"log\" field, found nothing"),
        (Data(#"{"log": {"entries": {}}}"#.utf8), "session.har: /log/entries: expected an array, found object"),
        (
            HAR.document([HAR.entry(url: "https://a/x", text: "{}"), HAR.entry(url: "https://a/x", status: #""x""#)]),
            "session.har: /log/entries/1/response/status: expected an integer, found string \"x\""
        ),
        (
            HAR.document([HAR.entry(url: "https://a/x", status: "999")]),
            "session.har: /log/entries/0/response/status: expected an HTTP status from 100 to 599, found integer 999"
        ),
        (
            HAR.document([HAR.entry(url: "/relative")]),
            "session.har: /log/entries/0/request/url: expected an absolute URL, found string \"/relative\""
        ),
        (
            HAR.document([HAR.entry(url: "https://a/x", text: "%%%", encoding: "base64")]),
            "session.har: /log/entries/0/response/content/text: expected base64 text (the entry says \"encoding\": \"base64\"), found text that is not base64"
        ),
        (
            HAR.document([HAR.entry(url: "https://a/x", text: "a", encoding: "gzip")]),
            "session.har: /log/entries/0/response/content/encoding: expected \"base64\" or no encoding, found string \"gzip\""
        ),
        (
            HAR.document([
                "{\"request\": {\"method\": \"GET\", \"url\": \"https://a/x\", \"headers\": [{\"name\": \"A\"}]}, \"response\": {\"status\": 200}}"
            ]),
            "session.har: /log/entries/0/request/headers/0/value: expected a \"value\" field, found nothing"
        ),
        (
            HAR.document(["{\"request\": {\"method\": 1, \"url\": \"https://a/x\"}, \"response\": {\"status\": 200}}"]),
            "session.har: /log/entries/0/request/method: expected a string, found integer 1"
        ),
        (
            HAR.document(["{\"request\": {\"method\": \"GET\", \"url\": \"https://a/x\"}}"]),
            "session.har: /log/entries/0/response: expected a \"response\" field, found nothing"
        ),
        (HAR.document(["3"]), "session.har: /log/entries/0: expected an object, found integer 3"),
    ]

    @Test(arguments: malformed)
    func malformedHARNamesTheEntryAndField(data: Data, message: String) {
        do {
            _ = try HARArchive(parsing: data, file: "session.har")
            Issue.record("expected: \(message)")
        } catch {
            #expect(error.description == message)
        }
    }
}
