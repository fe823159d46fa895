import Foundation
import JSONShape
import Testing

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
            let error = #expect(throws: JSONShapeError.self) {
                _ = try Shape.infer(from: Data(bytes), file: "sample.json")
            }
            #expect(error?.description == "\(place): expected valid UTF-8 (RFC 8259), found \(found)")
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
            _ = try Shape.infer(from: Data(input.utf8), file: "sample.json")
        } throws: { error in
            guard let error = error as? JSONShapeError else { return false }
            return error.file == "sample.json" && error.location == .lineColumn(line: line, column: column)
                && error.expected == expected
        }
    }

    @Test func errorTextNamesFilePlaceAndFound() {
        do {
            _ = try Shape.infer(from: Data("{\"a\" 1}".utf8), file: "x.json")
            Issue.record("no error")
        } catch {
            #expect(error.description == "x.json:1:6: expected ':', found '1'")
        }
    }

    @Test func hundredThousandNestedArraysGiveAClearError() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        do {
            _ = try Shape.infer(from: Data(deep.utf8))
            Issue.record("no error")
        } catch {
            #expect(error.location == .lineColumn(line: 1, column: 513))
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
        #expect(throws: JSONShapeError.self) { try infer("\"a\u{01}b\"") }
    }

    @Test func jsonLinesReadEachLineAndSkipBlankOnes() throws {
        var inference = ShapeInference()
        try inference.addJSONLines(Data("{\"a\":1}\r\n\n  \n{\"a\":2,\"b\":true}\n".utf8))
        #expect(inference.sampleCount == 2)
        #expect(inference.shape.required == ["a"])
        #expect(inference.shape.properties["b"]?.types == .boolean)
    }

    @Test func jsonLinesFileIsStreamedInChunksWithLineNumbers() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("shape-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
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
            (error as? JSONShapeError)?.description == "x.jsonl: expected a readable file, found no such file"
        }
    }
}
