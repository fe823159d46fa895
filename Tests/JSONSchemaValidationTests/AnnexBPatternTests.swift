import APIProbeShared
import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

@testable import JSONSchemaValidation

/// Patterns of real descriptions written in ECMA-262's Annex B syntax (no `u` flag), which browsers and Python's
/// `jsonschema` accept: refused with the flag, as JSON Schema asks, and compiled by Annex B where a caller allows it
/// (OpenAPI descriptions, with a note each).
struct AnnexBPatternTests {

    @Test func paypalsEmailPatternIsAnnexBOnly() throws {
        #expect(throws: ECMARegexError.self) { try ECMARegex(RealPatterns.paypalEmail) }
        let regex = try ECMARegex(RealPatterns.paypalEmail, annexB: true)
        #expect(try regex.matches("buyer@example.com"))
        #expect(try !regex.matches("not an address"))
        let reason = try #require(SchemaOptions.legacyPattern(RealPatterns.paypalEmail))
        #expect(reason.contains("a lone ']' is not allowed with the u flag"), "\(reason)")
        #expect(SchemaOptions.legacyPattern("^[a-z]+$") == nil)  // valid with the flag: no note
        #expect(SchemaOptions.legacyPattern("(") == nil)  // valid in neither: the error stands
    }

    /// Annex B's relaxations, each against what a browser's `RegExp` without the `u` flag matches.
    @Test(arguments: [
        (#"a]b"#, "a]b", true), (#"a{b"#, "a{b", true), (#"a}b"#, "a}b", true), (#"x{1,"#, "x{1,", true),
        (#"\x4"#, "x4", true), (#"\u12"#, "u12", true), (#"\c1"#, "\\c1", true), (#"\q\e"#, "qe", true),
        (#"\pL"#, "pL", true), (#"\0101"#, "\u{8}1", true), (#"\01"#, "\u{1}", true), (#"[\w-a]"#, "-", true),
        (#"[\w-.]"#, ".", true), (#"[\d-z]"#, "c", false),
    ])
    func annexBSyntax(_ pattern: String, _ text: String, _ matches: Bool) throws {
        #expect(throws: ECMARegexError.self) { try ECMARegex(pattern) }
        #expect(try ECMARegex(pattern, annexB: true).matches(text) == matches, "\(pattern) on \(text)")
    }

    /// A schema compiled for a description accepts the pattern; JSON Schema as such still refuses it.
    @Test func onlyACallerThatSaysSoAcceptsThem() throws {
        let schema = JSONValue.object([("type", .string("string")), ("pattern", .string(RealPatterns.paypalEmail))])
        #expect(throws: SchemaError.self) { try JSONSchema(schema) }
        var options = SchemaOptions()
        options.acceptsAnnexBPatterns = true
        let compiled = try JSONSchema(schema, options: options)
        #expect(try compiled.validate(.string("buyer@example.com")).isEmpty)
        #expect(try compiled.validate(.string("nope")).count == 1)
    }
}
