import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

@Suite(.temporaryFolder)
struct ExchangeFormatTests {
    static let sample = Exchange(
        request: RecordedRequest(
            method: "get", url: "https://api.example.com/api/search?q=chicken&page=1",
            headers: ["Accept": "application/json"]),
        response: RecordedResponse(
            status: 200,
            headers: ["Content-Type": "application/json"],
            body: .json(
                try! JSONValue(
                    parsing: Data(
                        #"{"count": 1, "recipes": [{"title": "Tacos", "social_rank": 99.99, "recipe_id": "35382"}]}"#
                            .utf8)))
        ),
        metadata: FixtureMetadata(
            recordedAt: "2026-11-22T18:00:00Z", apiprobeVersion: "0.1.0", redactions: ["request.query.key"],
            source: "record")
    )

    @Test func roundTripGivesTheSameExchange() throws {
        let decoded = try Exchange(decoding: Self.sample.encoded(), file: "sample.json")
        #expect(decoded == Self.sample)
        #expect(decoded.request.method == "GET")
    }

    @Test func rewritingAnUnchangedExchangeGivesIdenticalBytes() throws {
        let first = Self.sample.encoded()
        let second = try Exchange(decoding: first, file: "sample.json").encoded()
        #expect(first == second)
        #expect(first.last == UInt8(ascii: "\n"))
    }

    @Test func writingThroughTheStoreLeavesAnUnchangedFileUntouched() throws {
        let folder = try TemporaryFolder.make("fixtures")
        let store = FixtureStore(directory: folder)
        #expect(try store.write(Self.sample, named: "recipes/search"))
        let before = try Data(contentsOf: store.url(for: "recipes/search"))
        #expect(try store.write(Self.sample, named: "recipes/search") == false)
        #expect(try Data(contentsOf: store.url(for: "recipes/search")) == before)
        #expect(store.names() == ["recipes/search"])
    }

    @Test func jsonBodyIsStoredInlineWithSortedKeysAndTwoSpaceIndent() throws {
        let text = String(decoding: Self.sample.encoded(), as: UTF8.self)
        #expect(text.contains(#""bodyEncoding" : "json""#) || text.contains(#""bodyEncoding": "json""#))
        #expect(text.contains(#""social_rank""#))
        #expect(!text.contains(#"\"count\""#), "the body must not be an escaped string")
        #expect(text.hasPrefix("{\n  \"metadata\""))
        let recipeIDIndex = try #require(text.range(of: "\"recipe_id\""))
        let socialRankIndex = try #require(text.range(of: "\"social_rank\""))
        let titleIndex = try #require(text.range(of: "\"title\""))
        #expect(
            recipeIDIndex.lowerBound < socialRankIndex.lowerBound && socialRankIndex.lowerBound < titleIndex.lowerBound)
    }

    @Test func textAndBinaryBodiesRoundTrip() throws {
        let bytes = Data([0, 1, 2, 254, 255])
        let exchange = Exchange(
            request: RecordedRequest(method: "POST", url: "https://x.example/upload", body: .text("name=a&b=c")),
            response: RecordedResponse(status: 201, body: .binary(bytes))
        )
        let encoded = exchange.encoded()
        let document = try JSONValue(parsing: encoded)
        #expect(document.value(at: "/request/bodyEncoding") == .string("text"))
        #expect(document.value(at: "/response/bodyEncoding") == .string("base64"))
        #expect(document.value(at: "/response/body") == .string(bytes.base64EncodedString()))
        let decoded = try Exchange(decoding: encoded, file: "x.json")
        #expect(decoded.request.body == .text("name=a&b=c"))
        #expect(decoded.response.body == .binary(bytes))
    }

    @Test func bodyFromBytesChoosesJSONTextOrBinary() {
        #expect(
            FixtureBody(bytes: Data(#"{"a":1}"#.utf8), contentType: "application/json")
                == .json(.object([("a", .number("1"))])))
        #expect(FixtureBody(bytes: Data("<p>hi</p>".utf8), contentType: "text/html") == .text("<p>hi</p>"))
        #expect(
            FixtureBody(bytes: Data([0xFF, 0xFE, 0x00]), contentType: "image/png") == .binary(Data([0xFF, 0xFE, 0x00])))
    }

    @Test func largeIntegersKeepTheirDigits() throws {
        let exchange = Exchange(
            request: RecordedRequest(url: "https://x.example/"),
            response: RecordedResponse(body: .json(try JSONValue(parsing: Data(#"{"id": 12345678901234567890}"#.utf8))))
        )
        #expect(String(decoding: exchange.encoded(), as: UTF8.self).contains("12345678901234567890"))
    }

    static let badFixtures: [(text: String, message: String)] = [
        ("{\n  \"request\": ,\n}", "bad.json:2:14: expected a JSON value"),
        ("[]", "bad.json: /: expected a fixture object with \"request\" and \"response\", found array of 0"),
        (#"{"response": {"status": 200}}"#, "bad.json: /request: expected a \"request\" object, found nothing"),
        (
            #"{"request": {"url": "https://x"}, "response": {"status": 200}}"#,
            "bad.json: /request/method: expected an HTTP method string, found nothing"
        ),
        (
            #"{"request": {"method": "GET", "url": 3}, "response": {"status": 200}}"#,
            "bad.json: /request/url: expected a string, found integer 3"
        ),
        (
            #"{"request": {"method": "GET", "url": "https://x"}}"#,
            "bad.json: /response: expected a \"response\" object, found nothing"
        ),
        (
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": "ok"}}"#,
            "bad.json: /response/status: expected an integer HTTP status from 100 to 599, found string \"ok\""
        ),
        (
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 700}}"#,
            "bad.json: /response/status: expected an integer HTTP status from 100 to 599, found integer 700"
        ),
        (
            #"{"request": {"method": "GET", "url": "https://x", "headers": {"A": 1}}, "response": {"status": 200}}"#,
            "bad.json: /request/headers/A: expected a string, or an array of strings, found integer 1"
        ),
        (
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "headers": []}}"#,
            "bad.json: /response/headers: expected an object of header names to strings, found array of 0"
        ),
        (
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "body": "a", "bodyEncoding": "zip"}}"#,
            "bad.json: /response/bodyEncoding: expected \"json\", \"text\" or \"base64\", found \"zip\""
        ),
        (
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "body": "***", "bodyEncoding": "base64"}}"#,
            "bad.json: /response/body: expected base64 text, found text that is not base64"
        ),
        (
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "body": 5, "bodyEncoding": "text"}}"#,
            "bad.json: /response/body: expected a string, found integer 5"
        ),
        (
            #"{"metadata": {"redactions": "x"}, "request": {"method": "GET", "url": "https://x"}, "response": {"status": 200}}"#,
            "bad.json: /metadata/redactions: expected an array of strings, found string \"x\""
        ),
    ]

    @Test(arguments: badFixtures)
    func malformedFixtureNamesFileAndPlace(text: String, message: String) {
        do {
            _ = try Exchange(decoding: Data(text.utf8), file: "bad.json")
            Issue.record("expected an error: \(message)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    /// Reading a fixture for its sample (the body kept as bytes, not built) fails exactly as reading the whole
    /// exchange does, in the body and outside it.
    @Test(
        arguments: badFixtures.map(\.text) + [
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "body": {"a": [1, 2,]}}}"#,
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "body": {"a": "\q"}}}"#,
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "body": {"a": 01}}}"#,
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "body": [tru]}}"#,
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "body": {"a": 1}"#,
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "body": "\ud800", "bodyEncoding": 3}}"#,
            #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "body": 1}} x"#,
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        ])
    func aSampleFailsAsTheExchangeDoes(text: String) {
        let data = Data(text.utf8)
        var exchangeError: InputError?
        do { _ = try Exchange(decoding: data, file: "bad.json") } catch { exchangeError = error }
        var sampleError: InputError?
        do { _ = try Exchange.responseSample(decoding: data, file: "bad.json") } catch { sampleError = error }
        #expect(exchangeError != nil)
        #expect(sampleError == exchangeError)
    }

    /// The body's bytes are the file's own, and decode to the exchange's body; other encodings are no sample.
    @Test func aSampleHoldsTheBodysOwnBytes() throws {
        let body = #"{"b" : [1, 2.50, "\u00e9"], "body": {"response": {"body": null}}}"#
        let cases: [(String, Int, String?)] = [
            (
                #"{"request": {"method": "GET", "url": "https://x", "body": {"q": 1}}, "response": {"status": 201, "body": \#(body)}}"#,
                201, body
            ),
            // The last of two `body` members, as the exchange reads it.
            (
                #"{"request": {"method": "GET", "url": "https://x"}, "response": {"body": 1, "status": 200, "body": \#(body)}}"#,
                200, body
            ),
            (
                #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 404, "body": "gone", "bodyEncoding": "text"}}"#,
                404, nil
            ),
            (
                #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "body": "AAE=", "bodyEncoding": "base64"}}"#,
                200, nil
            ),
            (#"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 204}}"#, 204, nil),
            (
                #"{"request": {"method": "GET", "url": "https://x"}, "response": {"status": 200, "bodyEncoding": "json", "body": [] }}"#,
                200, "[]"
            ),
        ]
        for (text, status, expected) in cases {
            let sample = try Exchange.responseSample(decoding: Data(text.utf8), file: "x.json")
            #expect(sample.status == status)
            #expect(sample.jsonBody.map { String(decoding: $0, as: UTF8.self) } == expected, "\(text)")
            let exchange = try Exchange(decoding: Data(text.utf8), file: "x.json")
            if let json = sample.jsonBody {
                #expect(exchange.response.body == .json(try JSONValue(parsing: json)))
            } else {
                #expect(exchange.response.body.map { if case .json = $0 { true } else { false } } != true)
            }
        }
    }

    @Test func missingFixtureFileIsReported() {
        #expect(
            throws: InputError(
                file: "nope.json", position: .file, expected: "a readable fixture file", found: "no such file")
        ) {
            _ = try Exchange.load(
                from: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString).json"), displayName: "nope.json")
        }
    }
}
