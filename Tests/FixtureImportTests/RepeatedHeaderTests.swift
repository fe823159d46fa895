import FixtureImport
import Foundation
import HTTPFixtures
import Testing

/// A header field sent more than once (`Set-Cookie`, once per cookie) keeps each value through every path that
/// holds headers: the fixture file, the importers, the redactor. Joined with ", " they would be a different
/// cookie (an `Expires` date holds a comma).
@Suite struct RepeatedHeaderTests {
    static let cookies = [
        "session=abc123def456; Path=/; HttpOnly", "theme=dark; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
    ]

    static func exchange() -> Exchange {
        var headers: HeaderFields = ["Content-Type": "application/json"]
        for cookie in cookies { headers.append(name: "Set-Cookie", value: cookie) }
        return Exchange(
            request: RecordedRequest(url: "https://api.example.com/login"),
            response: RecordedResponse(status: 200, headers: headers, body: .json(.object([]))))
    }

    @Test func aFixtureKeepsEachValueAndReadsBackToTheSameBytes() throws {
        let encoded = Self.exchange().encoded()
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(
            text.contains(
                """
                      "Set-Cookie": [
                        "session=abc123def456; Path=/; HttpOnly",
                        "theme=dark; Expires=Wed, 21 Oct 2026 07:28:00 GMT"
                      ]
                """), "\(text)")
        #expect(text.contains(#""Content-Type": "application/json""#), "a field sent once stays a string")
        let back = try Exchange(decoding: encoded, file: "login.json")
        #expect(back.response.headers.values(for: "set-cookie") == Self.cookies)
        #expect(back.response.headers.count == 3)
        #expect(back.encoded() == encoded)
    }

    @Test(arguments: [
        (#"{"Set-Cookie": []}"#, "/response/headers/Set-Cookie", "a string, or an array of strings"),
        (#"{"Set-Cookie": ["a=1", 3]}"#, "/response/headers/Set-Cookie/1", "a string"),
        (#"{"X/Y": 3}"#, "/response/headers/X~1Y", "a string, or an array of strings"),
    ])
    func aBadRepeatedFieldIsAnErrorAtItsPointer(headers: String, pointer: String, expected: String) {
        let text =
            #"{"request": {"method": "GET", "url": "https://a.example/x"}, "response": {"status": 200, "headers": \#(headers)}}"#
        #expect {
            _ = try Exchange(decoding: Data(text.utf8), file: "bad.json")
        } throws: { error in
            guard let error = error as? InputError else { return false }
            return error.file == "bad.json" && error.position == .jsonPointer(pointer) && error.expected == expected
        }
    }

    @Test func aHARFileKeepsEachSetCookie() throws {
        let data = HAR.document([
            HAR.entry(
                url: "https://api.example.com/login",
                responseHeaders: [("Content-Type", "application/json")] + Self.cookies.map { ("Set-Cookie", $0) },
                text: "{}")
        ])
        let archive = try HARArchive(parsing: data, file: "session.har", redactingWith: .none)
        let headers = try #require(archive.entries.first?.exchange.response.headers)
        #expect(headers.values(for: "Set-Cookie") == Self.cookies)
    }

    @Test func theRedactorMasksEachValueAndNotesThePlaceOnce() {
        let redacted = Redactor(.default).redact(Self.exchange())
        let values = redacted.response.headers.values(for: "Set-Cookie")
        #expect(values.count == 2)
        for (value, cookie) in zip(values, Self.cookies) { #expect(value != cookie, "\(value)") }
        #expect(!String(decoding: redacted.encoded(), as: UTF8.self).contains("abc123def456"))
        #expect(redacted.metadata.redactions.filter { $0 == "response.headers.Set-Cookie" }.count == 1)
    }
}
