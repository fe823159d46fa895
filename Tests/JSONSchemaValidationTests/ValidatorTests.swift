import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

@testable import JSONSchemaValidation

/// What the validator promises beyond the official suite's verdicts: where each error is (the basic output's three
/// locations), the messages a person reads, schemas that are not schemas, limits, and files that stay in their folder.
@Suite(.temporaryFolder)
struct ValidatorTests {
    private func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: Data(text.utf8)) }

    private func schema(_ text: String, _ configure: (inout SchemaOptions) -> Void = { _ in }) throws -> JSONSchema {
        var options = SchemaOptions()
        configure(&options)
        return try JSONSchema(try json(text), options: options)
    }

    @Test func anErrorNamesTheInstanceTheEvaluationPathAndTheKeywordWhereItIsWritten() throws {
        let compiled = try schema(
            ##"{"$id": "https://example.com/order", "properties": {"items": {"items": {"$ref": "#/$defs/item"}}}, "$defs": {"item": {"properties": {"price": {"maximum": 100}}}}}"##
        )
        let errors = try compiled.validate(try json(#"{"items": [{"price": 5}, {"price": 250}]}"#))
        #expect(errors.count == 1)
        let error = try #require(errors.first)
        #expect(error.instanceLocation == "/items/1/price")
        #expect(error.keywordLocation == "/properties/items/items/$ref/properties/price/maximum")
        #expect(error.absoluteKeywordLocation == "https://example.com/order#/$defs/item/properties/price/maximum")
        #expect(error.message == "expected a number at most 100, found 250")
    }

    @Test func oneOfSaysHowManyAlternativesFitAndTheClosestReasons() throws {
        let compiled = try schema(
            #"{"oneOf": [{"type": "object", "required": ["card"]}, {"type": "object", "required": ["iban"]}, {"type": "string"}]}"#
        )
        let none = try compiled.validate(try json(#"{"cardd": 1}"#))
        #expect(
            none.first?.message
                == "expected a value that fits exactly one of the 3 alternatives, found object, which fits none; the closest is oneOf/0, whose reasons follow"
        )
        #expect(none.dropFirst().map(\.keyword) == ["required"])
        #expect(none.dropFirst().first?.property == "card")
        let two = try compiled.validate(try json(#"{"card": 1, "iban": 2}"#))
        #expect(
            two.map(\.message) == [
                "expected a value that fits exactly one of the 3 alternatives, found object, which fits 2 (0, 1)"
            ])
    }

    /// Numbers as values: `1.0` is an integer, big bounds compare exactly, decimal steps divide exactly.
    @Test func numbersAreComparedExactly() throws {
        #expect(try schema(#"{"type": "integer"}"#).isValid(.number("1.0")))
        #expect(try schema(#"{"type": "integer"}"#).isValid(.number("12345678901234567890123")))
        #expect(try !schema(#"{"type": "integer"}"#).isValid(.number("1.5")))
        let bound = try schema(#"{"exclusiveMaximum": 972783798187987123879878123.18878137}"#)
        #expect(try !bound.isValid(.number("972783798187987123879878123.188781371")))
        #expect(try bound.isValid(.number("972783798187987123879878123.18878136")))
        #expect(try schema(#"{"multipleOf": 0.01}"#).isValid(.number("19.99")))
        #expect(try !schema(#"{"multipleOf": 0.01}"#).isValid(.number("19.999")))
        #expect(try schema(#"{"multipleOf": 0.5}"#).isValid(.number("1e308")))
    }

    /// Strings compare code point by code point (Swift's `==` would call these equal), and lengths count code
    /// points, not grapheme clusters.
    @Test func stringsAreCodePoints() throws {
        #expect(try !schema(#"{"const": "\u00e9"}"#).isValid(.string("e\u{301}")))
        #expect(try schema(#"{"const": "\u00e9"}"#).isValid(.string("\u{e9}")))
        #expect(try !schema(#"{"maxLength": 1}"#).isValid(.string("e\u{301}")))
        #expect(try schema(#"{"maxLength": 1}"#).isValid(.string("💩")))
        #expect(try !schema(#"{"uniqueItems": true}"#).isValid(try json("[1, 1.0]")))
        #expect(try schema(#"{"uniqueItems": true}"#).isValid(.array([.string("\u{e9}"), .string("e\u{301}")])))
    }

    @Test func keywordsADialectDoesNotDefineAreListedNotEnforced() throws {
        let compiled = try schema(
            #"{"$schema": "http://json-schema.org/draft-07/schema#", "prefixItems": [false], "maxLenght": 1}"#)
        #expect(try compiled.isValid(try json("[1]")))
        #expect(Set(compiled.ignoredKeywords.map(\.keyword)) == ["prefixItems", "maxLenght"])
        #expect(compiled.ignoredKeywords.first { $0.keyword == "maxLenght" }?.reason == "not a JSON Schema keyword")
        #expect(compiled.ignoredKeywords.first { $0.keyword == "prefixItems" }?.pointer == "/prefixItems")
    }

    /// A schema that is not one is an error at its place, before anything is validated.
    @Test(arguments: [
        ("12", ""),
        (#"{"$schema": "https://example.com/unknown"}"#, "/$schema"),
        (##"{"items": {"$ref": "#/$defs/nowhere"}}"##, "/items/$ref"),
        (
            ##"{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}"##,
            "/$defs/b/$ref"
        ),
        (#"{"pattern": "a{2,1}"}"#, "/pattern"),
        (#"{"type": "text"}"#, "/type"),
    ])
    func aSchemaThatIsNotOneIsAnErrorAtItsPlace(_ text: String, _ pointer: String) throws {
        do {
            _ = try schema(text)
            Issue.record("\(text) compiled")
        } catch let error as SchemaError {
            #expect(error.pointer == pointer, "\(error)")
        }
    }

    /// A pattern that never finishes stops at its time limit with an error that names it: not a pass, not a hang.
    /// (The lookahead keeps ICU: without it, `^(a+)+$` is regular and the automaton answers it at once.)
    @Test func aPathologicalPatternStopsAtItsTimeLimit() throws {
        let compiled = try schema(#"{"properties": {"name": {"pattern": "^(?=(a+)+$)"}}}"#) {
            $0.patternTimeLimit = .milliseconds(50)
        }
        let started = ContinuousClock.now
        do {
            _ = try compiled.validate(try json(#"{"name": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"}"#))
            Issue.record("validated")
        } catch let error as ValidationLimitError {
            #expect(error.instanceLocation == "/name")
            #expect(error.absoluteKeywordLocation.hasSuffix("#/properties/name/pattern"))
            #expect(error.message.contains("^(?=(a+)+$)"), "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    /// A `$ref` to another file reads it from the schema's folder; one that leaves the folder leads nowhere.
    @Test func referencesToFilesStayInsideTheirFolder() throws {
        let root = try TemporaryFolder.make("schema-files")
        let folder = root.appendingPathComponent("schemas")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(#"{"$defs": {"Money": {"type": "integer", "minimum": 0}}}"#.utf8)
            .write(to: folder.appendingPathComponent("common.json"))
        try Data(#"{"type": "string"}"#.utf8).write(to: root.appendingPathComponent("secret.json"))
        let inside = folder.appendingPathComponent("order.json")
        try Data(#"{"properties": {"total": {"$ref": "common.json#/$defs/Money"}}}"#.utf8).write(to: inside)
        let compiled = try SchemaFile.compile(contentsOf: inside, displayName: "order.json")
        #expect(try compiled.validate(try json(#"{"total": -1}"#)).map(\.keyword) == ["minimum"])

        let outside = folder.appendingPathComponent("escape.json")
        try Data(#"{"$ref": "../secret.json"}"#.utf8).write(to: outside)
        #expect {
            try SchemaFile.compile(contentsOf: outside, displayName: "escape.json")
        } throws: { error in
            "\(error)".contains("escape.json: /$ref:") && "\(error)".contains("leads nowhere")
        }
    }

    /// OpenAPI 3.0's schema object: `nullable`, boolean `exclusiveMinimum`, `$ref` hiding its siblings, and
    /// `readOnly` properties not required in requests.
    @Test func openAPI30sSchemaObject() throws {
        let compiled = try schema(
            #"{"type": "object", "required": ["id", "n"], "properties": {"id": {"type": "string", "readOnly": true}, "n": {"type": "integer", "minimum": 0, "exclusiveMinimum": true, "nullable": true}}}"#
        ) {
            $0.defaultDialect = .openAPI30
            $0.direction = .request
        }
        #expect(try compiled.isValid(try json(#"{"n": null}"#)))
        #expect(try !compiled.isValid(try json(#"{"n": 0}"#)))
        #expect(try compiled.isValid(try json(#"{"n": 1}"#)))
        #expect(try !compiled.isValid(try json(#"{}"#)))
    }
}
