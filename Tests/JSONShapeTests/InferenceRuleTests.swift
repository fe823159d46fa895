import Foundation
import JSONShape
import Testing

struct InferenceRuleTests {
    @Test func propertyIsRequiredOnlyWhenEverySampleHasIt() throws {
        let shape = try inferAll([#"{"a": 1, "b": 2}"#, #"{"a": 3}"#, #"{"a": 4, "c": 5}"#])
        #expect(shape.required == ["a"])
        #expect(Set(shape.properties.keys) == ["a", "b", "c"])
    }

    @Test func emptyObjectMakesEveryPropertyOptional() throws {
        let shape = try infer(#"[{"a": 1}, {}]"#)
        #expect(shape.items?.required == [])
        #expect(shape.items?.properties["a"]?.types == .integer)
    }

    @Test func repeatedKeyCountsOnce() throws {
        let shape = try infer(#"[{"a": 1, "a": 2}, {"b": 1}]"#)
        #expect(shape.items?.required == [])
    }

    @Test func nullMakesAValueNullable() throws {
        let shape = try inferAll([#"{"a": "x"}"#, #"{"a": null}"#])
        #expect(shape.properties["a"]?.types == [.string, .null])
        #expect(shape.required == ["a"])
    }

    @Test func differentTypesMakeAUnion() throws {
        let shape = try infer(#"[1, "x", true, {"a": 1}, [2]]"#)
        #expect(shape.items?.types == [.integer, .string, .boolean, .object, .array])
    }

    @Test func integerAndNumberMergeToNumber() throws {
        let shape = try infer("[1, 2.5, 3]")
        #expect(shape.items?.types == .number)
    }

    @Test func arrayItemsMergeAcrossEveryElementAndSample() throws {
        let shape = try inferAll([
            #"{"xs": [{"a": 1}, {"a": 2, "b": "x"}]}"#, #"{"xs": []}"#, #"{"xs": [{"a": null}]}"#,
        ])
        let items = try #require(shape.properties["xs"]?.items)
        #expect(items.required == ["a"])
        #expect(items.properties["a"]?.types == [.integer, .null])
        #expect(items.properties["b"]?.types == .string)
    }

    @Test func arrayThatWasAlwaysEmptyHasNoItems() throws {
        let shape = try infer(#"{"xs": []}"#)
        #expect(shape.properties["xs"]?.types == .array)
        #expect(shape.properties["xs"]?.items == nil)
    }

    @Test(arguments: [
        (["2026-11-22T18:00:00Z", "2026-01-01T00:00:00.125+01:00", "2026-02-03t04:05:06z"], StringFormat.dateTime),
        (["2026-11-22", "1999-12-31"], StringFormat.date),
        (["https://example.com/a?b=c", "http://x.y", "mailto:a@b.c"], StringFormat.uri),
        (["0b0e5a4c-93f5-4f0e-9d63-1c1e4e7a2b10", "123E4567-E89B-12D3-A456-426614174000"], StringFormat.uuid),
        (["cook@example.com", "first.last+tag@mail.example.org"], StringFormat.email),
    ])
    func formatIsKeptWhenEverySampleFits(values: [String], format: StringFormat) throws {
        let json = "[" + values.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        #expect(try infer(json).items?.format == format)
    }

    @Test(arguments: [
        ["2026-11-22T18:00:00Z", "2026-11-22"],
        ["2026-11-22", "not a date"],
        ["https://example.com", "example.com"],
        ["cook@example.com", "cook@"],
        ["0b0e5a4c-93f5-4f0e-9d63-1c1e4e7a2b10", "0b0e5a4c93f54f0e9d631c1e4e7a2b10"],
        ["2026-13-01"],
        ["2026-11-22T25:00:00Z"],
        ["note: hello"],
    ])
    func formatIsDroppedWhenASampleDoesNotFit(values: [String]) throws {
        let json = "[" + values.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        #expect(try infer(json).items?.format == nil)
    }

    /// The format checks test eight bytes at a time: every character, at every place in the word (and in the
    /// overlapping last word, and in a string too short for a word), must give what the rule says.
    @Test func formatChecksAgreeWithTheirRulesForEveryCharacter() {
        let characters = (0..<128).map { Character(Unicode.Scalar(UInt8($0))) } + ["é", "\u{2028}", "😀"]
        let notInURI = Set(" \"<>\\\u{7F}".unicodeScalars)
        let notInEmail = Set(" \"(),:;<>".unicodeScalars)
        func replacing(_ text: String, at offset: Int, with character: Character) -> String {
            var characters = Array(text)
            characters[offset] = character
            return String(characters)
        }
        for character in characters {
            let scalar = character.unicodeScalars.first!
            let isControl = scalar.value < 0x20
            let uriAllows = !isControl && !notInURI.contains(scalar) && scalar.isASCII
            for (uri, offsets) in [("https://example.com/recipes/12345678", [9, 14, 20, 35]), ("a://bc", [5])] {
                for offset in offsets {
                    let text = replacing(uri, at: offset, with: character)
                    #expect(StringFormat.detect(in: text) == (uriAllows ? .uri : nil), "\(text.debugDescription)")
                }
            }
            let emailAllows = !isControl && !notInEmail.contains(scalar) && character != "@"
            for (email, offsets) in [("cook.someone@example.com", [1, 7, 9, 22]), ("a@b.cd", [0])] {
                for offset in offsets {
                    let text = replacing(email, at: offset, with: character)
                    let expected: StringFormat? = emailAllows ? .email : nil
                    #expect(StringFormat.detect(in: text) == expected, "\(text.debugDescription)")
                }
            }
            let uuidAllows = character.isHexDigit && character.isASCII
            for offset in [0, 7, 9, 15, 25, 31, 33, 35] {
                let text = replacing("0b0e5a4c-93f5-4f0e-9d63-1c1e4e7a2b10", at: offset, with: character)
                #expect(StringFormat.detect(in: text) == (uuidAllows ? .uuid : nil), "\(text.debugDescription)")
            }
        }
        // A dash in place of a digit is a fifth dash: no UUID, in each word and in the overlapping last one.
        #expect(StringFormat.detect(in: "0b0e5a4c-93f5-4f0e-9d63-1c1e4e7a2b-0") == nil)
        #expect(StringFormat.detect(in: "0b0e5a4c-93f5-4f0e-9d63-1c1e4e7a-b10") == nil)
        #expect(StringFormat.detect(in: "0b0e-a4c-93f5-4f0e-9d63-1c1e4e7a2b10") == nil)
    }

    @Test func formatSurvivesNullsAndOtherTypes() throws {
        let shape = try infer(#"[null, "2026-11-22", 3, "2026-11-23"]"#)
        #expect(shape.items?.format == .date)
    }

    @Test func objectWithDynamicKeysIsAMap() throws {
        let shape = try inferAll([
            #"{"byId": {"1": {"n": 1}, "2": {"n": 2, "x": true}}}"#,
            #"{"byId": {"17": {"n": 3}}}"#,
            #"{"byDay": {"2026-11-22": 1, "2026-11-23": 2}, "byUUID": {"0b0e5a4c-93f5-4f0e-9d63-1c1e4e7a2b10": "a"}}"#,
        ])
        let byID = try #require(shape.properties["byId"])
        #expect(byID.isMap)
        #expect(byID.properties.isEmpty)
        #expect(byID.additionalProperties?.required == ["n"])
        #expect(byID.additionalProperties?.properties["x"]?.types == .boolean)
        #expect(shape.properties["byDay"]?.additionalProperties?.types == .integer)
        #expect(shape.properties["byUUID"]?.additionalProperties?.types == .string)
    }

    @Test func objectWithNamedKeysIsARecord() throws {
        let shape = try infer(#"{"user": {"1st": 1, "name": "x"}}"#)
        #expect(shape.properties["user"]?.isMap == false)
        #expect(shape.properties["user"]?.properties.count == 2)
    }

    @Test func objectWithTooManyKeysBecomesAMap() throws {
        var options = InferenceOptions()
        options.maximumProperties = 10
        var inference = ShapeInference(options: options)
        for sample in 0..<3 {
            let members = (0..<5).map { "\"field\(sample * 5 + $0)\": \($0)" }.joined(separator: ",")
            try inference.addSample(Data("{\(members)}".utf8))
        }
        #expect(inference.shape.isMap)
        #expect(inference.shape.additionalProperties?.types == .integer)
    }

    @Test func enumsOnlyWhenAsked() throws {
        let samples = [#"{"s": "open"}"#, #"{"s": "closed"}"#, #"{"s": "open"}"#]
        #expect(try inferAll(samples).properties["s"]?.enumValues == nil)
        #expect(try inferAll(samples, enums: true).properties["s"]?.enumValues == ["closed", "open"])
    }

    @Test func tooManyDistinctValuesAreNoEnum() throws {
        let values = (0..<17).map { "\"v\($0)\"" }.joined(separator: ",")
        #expect(try infer("[\(values)]", enums: true).items?.enumValues == nil)
        let few = (0..<16).map { "\"v\($0)\"" }.joined(separator: ",")
        #expect(try infer("[\(few)]", enums: true).items?.enumValues?.count == 16)
    }

    @Test func sampleCountCountsDocuments() throws {
        var inference = ShapeInference()
        try inference.addSample(Data("1".utf8))
        try inference.addSample(Data("null".utf8))
        inference.add(ShapeNode(types: .string), samples: 3)
        #expect(inference.sampleCount == 5)
        #expect(inference.shape.types == [.integer, .null, .string])
    }

    @Test func copiesOfAnInferenceAreIndependent() throws {
        var first = ShapeInference()
        try first.addSample(Data(#"{"a": 1}"#.utf8))
        var second = first
        try second.addSample(Data(#"{"b": 1}"#.utf8))
        #expect(first.shape.required == ["a"])
        #expect(second.shape.required == [])
    }

    @Test func keyOrderIsKeptForDisplay() throws {
        let shape = try inferAll([#"{"zeta": 1, "alpha": 2, "mid": 3}"#, #"{"beta": 1, "zeta": 2}"#])
        #expect(shape.orderedPropertyNames == ["zeta", "alpha", "mid", "beta"])
        let merged = try infer(#"{"b": 1, "a": 1}"#).merging(try infer(#"{"c": 1, "a": 2}"#))
        #expect(merged.orderedPropertyNames == ["b", "a", "c"])
        #expect(merged == (try infer(#"{"c": 1, "a": 2}"#).merging(try infer(#"{"b": 1, "a": 1}"#))))
    }
}
