import Foundation
import HTTPFixtures
import Testing

/// Every file the tool writes it can read back, and text that is not UTF-8 is an error at its place.
struct ReadBackTests {
    static func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    /// A body nested to the reader's limit is stored inline two levels down (`response.body`): the fixture
    /// reader allowed the same limit for the whole file and refused what the recorder had just written.
    @Test(arguments: [510, 511, 512])
    func aFixtureOfABodyNestedToTheReadersLimitReadsBack(_ depth: Int) throws {
        let body = FixtureBody(bytes: Data(Self.nested(depth).utf8), contentType: "application/json")
        guard case .json = body else {
            Issue.record("a body of depth \(depth) is within the reader's limit and should be JSON")
            return
        }
        let exchange = Exchange(
            request: RecordedRequest(url: "https://api.example.com/deep"),
            response: RecordedResponse(status: 200, headers: [:], body: body))
        let decoded = try Exchange(decoding: exchange.encoded(), file: "Stubs/x/deep.json")
        #expect(decoded.response.body == body)
    }

    @Test func aBodyDeeperThanTheReadersLimitIsStoredAsTextAndReadsBack() throws {
        let text = Self.nested(513)
        let body = FixtureBody(bytes: Data(text.utf8), contentType: "application/json")
        #expect(body == .text(text))
        let exchange = Exchange(
            request: RecordedRequest(url: "https://api.example.com/deep"),
            response: RecordedResponse(status: 200, headers: [:], body: body))
        #expect(try Exchange(decoding: exchange.encoded(), file: "deep.json").response.body == body)
    }

    @Test(arguments: [
        ([0xFF] as [UInt8], "1:7: expected valid UTF-8 (RFC 8259), found byte 0xFF"),
        ([0x61, 0xC3, 0x28], "1:8: expected valid UTF-8 (RFC 8259), found byte 0xC3"),
        ([0xC0, 0xAF], "1:7: expected valid UTF-8 (RFC 8259), found byte 0xC0"),  // overlong '/'
        ([0xED, 0xA0, 0x80], "1:7: expected valid UTF-8 (RFC 8259), found byte 0xED"),  // a surrogate
        ([0xF4, 0x90, 0x80, 0x80], "1:7: expected valid UTF-8 (RFC 8259), found byte 0xF4"),  // above U+10FFFF
        ([0xE2, 0x82], "1:7: expected valid UTF-8 (RFC 8259), found byte 0xE2"),  // truncated
    ])
    func invalidUTF8InAStringIsAnErrorAtItsPlace(_ bad: [UInt8], _ message: String) {
        let data = Data(Array(#"{"a":""#.utf8) + bad + Array(#""}"#.utf8))
        #expect(throws: InputError.self) { try JSONValue(parsing: data) }
        do {
            _ = try JSONValue(parsing: data)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func validUTF8OfEveryLengthIsRead() throws {
        let text = "a é € 😀 \u{10FFFF}"
        let value = try JSONValue(parsing: Data(#"{"a":"\#(text)"}"#.utf8))
        #expect(value["a"] == .string(text))
    }

    @Test func aFixtureWithInvalidUTF8NamesFileLineAndColumn() {
        let data = Data(Array("{\n  \"request\": {\"url\": \"https://a.test/".utf8) + [0xFE] + Array("\"}}".utf8))
        #expect(throws: InputError.self) { try Exchange(decoding: data, file: "Stubs/x/a.json") }
        do {
            _ = try Exchange(decoding: data, file: "Stubs/x/a.json")
        } catch {
            #expect(error.description == "Stubs/x/a.json:2:38: expected valid UTF-8 (RFC 8259), found byte 0xFE")
        }
    }
}
