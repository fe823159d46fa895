import APIProbeTestSupport
import Foundation
import HTTPFixtures
import JSONShape
import Testing

@Suite(.temporaryFolder)
struct ReaderTests {
    @Test(arguments: [
        ([0xFF] as [UInt8], 1, 7, "byte 0xFF"),
        ([0x61, 0xC3, 0x28], 1, 8, "byte 0xC3"),
        ([0xED, 0xA0, 0x80], 1, 7, "byte 0xED"),
        ([0xF0, 0x9F, 0x98], 1, 7, "byte 0xF0"),
    ])
    func invalidUTF8InAStringIsAnErrorAtItsPlaceNotAReplacementCharacter(
        _ bad: [UInt8], _ line: Int, _ column: Int, _ found: String
    ) {
        for key in [false, true] {
            // In a value, and in a key.
            let bytes =
                key
                ? Array(#"{""#.utf8) + bad + Array(#"":1}"#.utf8) : Array(#"{"a":""#.utf8) + bad + Array(#""}"#.utf8)
            let expectedColumn = key ? column - 4 : column
            let place = "sample.json:\(line):\(expectedColumn)"
            let error = #expect(throws: InputError.self) {
                _ = try ShapeNode.infer(from: Data(bytes), file: "sample.json")
            }
            #expect(error?.description == "\(place): expected valid UTF-8 (RFC 8259), found \(found)")
        }
    }

    /// Strings are scanned eight bytes at a time: every byte value, at every place in a word (and near the end
    /// of the document, where fewer than eight bytes are left), must be taken as the rule says.
    @Test func everyByteAtEveryPlaceInAStringIsReadByTheRule() {
        // No letter here starts an escape (b, f, n, r, t, u).
        let letters = Array("acdeghijklmopqsvw".utf8)
        for byte in 0...255 {
            for offset in letters.indices {
                var content = letters
                content[offset] = UInt8(byte)
                for (opening, closing) in [(#"{"k":""#, #""}"#), (#"[""#, #""]"#)] {
                    let result = Result {
                        try ShapeNode.infer(from: Data(Array(opening.utf8) + content + Array(closing.utf8)))
                    }
                    let column = opening.utf8.count + offset + 1
                    let message: String?
                    if case .failure(let error) = result { message = "\(error)" } else { message = nil }
                    switch byte {
                    case 0x00..<0x20:
                        let expected = #"expected '"' or a character (control characters must be escaped)"#
                        #expect(message == "<input>:1:\(column): \(expected), found \(found(byte))")
                    case 0x22:
                        // The string ends early: a letter follows where a value may not.
                        #expect(message?.hasPrefix("<input>:1:\(column + 1): expected ',' or") == true)
                    case 0x5C where offset == letters.count - 1:
                        // `\"` is an escape: the string goes on to the end of the input.
                        #expect(
                            message?.hasSuffix(#"expected '"' closing the string, found the end of the input"#) == true)
                    case 0x5C:
                        let expected = #"expected an escape (\", \\, \/, \b, \f, \n, \r, \t or \u)"#
                        #expect(
                            message == "<input>:1:\(column + 1): \(expected), found \(found(Int(letters[offset + 1])))")
                    case 0x80...:
                        #expect(message == "<input>:1:\(column): expected valid UTF-8 (RFC 8259), found \(found(byte))")
                    default:
                        #expect(message == nil, "byte \(byte) at \(offset)")
                    }
                }
            }
        }
        func found(_ byte: Int) -> String {
            switch byte {
            case 0x0A: return "a line break"
            case 0x09: return "a tab"
            case 0x20..<0x7F: return "'\(Character(Unicode.Scalar(UInt8(byte))))'"
            default: return "byte 0x" + String(byte, radix: 16, uppercase: true)
            }
        }
    }

    /// Numbers of every length end where their digits end, at every place in a word.
    @Test func numbersOfEveryLengthAreRead() throws {
        for length in 1...20 {
            let digits = String((0..<length).map { Character(String(1 + $0 % 9)) })
            for (text, types) in [
                (digits, JSONTypes.integer), ("-" + digits, .integer), (digits + ".5", .number),
                ("0." + digits, .number), (digits + "e3", .number), (digits + ".25E-2", .number),
            ] {
                let shape = try ShapeNode.infer(from: Data(#"{"a":\#(text),"b":\#(text)}"#.utf8))
                #expect(shape.properties["a"]?.types == types, "\(text)")
                #expect(shape.properties["b"]?.types == types, "\(text)")
                let array = try ShapeNode.infer(from: Data("[\(text)]".utf8))
                #expect(array.items?.types == types, "\(text) at the end of the document")
            }
        }
    }

    @Test func integerAndNumberStayApart() throws {
        let shape = try infer(#"{"a": 1, "b": 1.0, "c": 1e5, "d": -0, "e": 12345678901234567890123}"#)
        #expect(shape.properties["a"]?.types == .integer)
        #expect(shape.properties["b"]?.types == .number)
        #expect(shape.properties["c"]?.types == .number)
        #expect(shape.properties["d"]?.types == .integer)
        #expect(shape.properties["e"]?.types == .integer)
    }

    @Test(arguments: [
        ("{\"a\": 1,}", 1, 9, "a string key"),
        ("[1, 2", 1, 6, "',' or ']'"),
        ("{\n  \"a\": tru\n}", 2, 8, "a JSON value"),
        ("\"abc", 1, 5, "'\"' closing the string"),
        ("[01]", 1, 3, "',' or ']'"),
        ("{} {}", 1, 4, "the end of the document"),
        ("", 1, 1, "a JSON value"),
        ("[1.]", 1, 4, "a digit after '.'"),
        ("\"\\x\"", 1, 3, "an escape (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u)"),
    ])
    func syntaxErrorsGiveLineAndColumn(input: String, line: Int, column: Int, expected: String) {
        #expect {
            _ = try ShapeNode.infer(from: Data(input.utf8), file: "sample.json")
        } throws: { error in
            guard let error = error as? InputError else { return false }
            return error.file == "sample.json" && error.position == .lineColumn(line: line, column: column)
                && error.expected == expected
        }
    }

    @Test func errorTextNamesFilePlaceAndFound() {
        do {
            _ = try ShapeNode.infer(from: Data("{\"a\" 1}".utf8), file: "x.json")
            Issue.record("no error")
        } catch {
            #expect(error.description == "x.json:1:6: expected ':', found '1'")
        }
    }

    @Test func hundredThousandNestedArraysGiveAClearError() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        do {
            _ = try ShapeNode.infer(from: Data(deep.utf8))
            Issue.record("no error")
        } catch {
            #expect(error.position == .lineColumn(line: 1, column: 513))
            #expect(error.expected.contains("at most 512 levels"))
        }
    }

    @Test func nestingUpToTheLimitIsRead() throws {
        let text = String(repeating: "[", count: 512) + "1" + String(repeating: "]", count: 512)
        var shape = try infer(text)
        var depth = 0
        while let items = shape.items {
            depth += 1
            shape = items
        }
        #expect(depth == 512)
        #expect(shape.types == .integer)
    }

    @Test func escapedStringsAreDecodedForFormatsAndKeys() throws {
        let shape = try infer(#"{"u\u0072l": "https:\/\/example.com\/a", "s": "\ud83d\ude00"}"#)
        #expect(shape.properties["url"]?.format == .uri)
        #expect(shape.properties["s"]?.types == .string)
    }

    @Test func unescapedControlCharacterIsAnError() {
        #expect(throws: InputError.self) { try infer("\"a\u{01}b\"") }
    }

    @Test func jsonLinesReadEachLineAndSkipBlankOnes() throws {
        var inference = ShapeInference()
        try inference.addJSONLines(Data("{\"a\":1}\r\n\n  \n{\"a\":2,\"b\":true}\n".utf8))
        #expect(inference.sampleCount == 2)
        #expect(inference.shape.required == ["a"])
        #expect(inference.shape.properties["b"]?.types == .boolean)
    }

    @Test func jsonLinesFileIsStreamedInChunksWithLineNumbers() throws {
        let url = try TemporaryFolder.url.appendingPathComponent("shape.jsonl")
        var text = ""
        for index in 0..<200 { text += "{\"id\": \(index), \"name\": \"item \(index)\"}\n" }
        text += "{\"id\": 1, oops}\n"
        try Data(text.utf8).write(to: url)
        var inference = ShapeInference()
        do {
            try inference.addJSONLines(contentsOf: url, file: "items.jsonl", chunkSize: 7)
            Issue.record("no error")
        } catch {
            #expect(error.description == "items.jsonl:201:11: expected a string key, found 'o'")
        }
        #expect(inference.sampleCount == 200)

        var clean = ShapeInference()
        // No final newline.
        try Data(text.split(separator: "\n").dropLast().joined(separator: "\n").utf8).write(to: url)
        try clean.addJSONLines(contentsOf: url, chunkSize: 5)
        #expect(clean.sampleCount == 200)
        #expect(clean.shape.required == ["id", "name"])
    }

    @Test func missingJSONLinesFileIsAnError() {
        var inference = ShapeInference()
        #expect {
            try inference.addJSONLines(contentsOf: URL(fileURLWithPath: "/nonexistent/x.jsonl"), file: "x.jsonl")
        } throws: { error in
            (error as? InputError)?.description == "x.jsonl: expected a readable file, found no such file"
        }
    }
}
