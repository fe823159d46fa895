import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

/// `apiprobe schema validate`, run as the docs say: verdicts and exit statuses, the standard's basic output, bad
/// schemas named by file and JSON Pointer, limits, and no secret of a document in any output.
@Suite(.tags(.commandLine), .temporaryFolder)
struct SchemaValidateCommandTests {
    private func folder(_ files: [String: String]) throws -> URL {
        let directory = try TemporaryFolder.make("schema-validate")
        for (name, text) in files {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
        return directory
    }

    static let orderSchema = #"""
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "type": "object",
          "required": ["id", "items"],
          "properties": {
            "id": {"type": "string", "pattern": "^ord_[0-9]+$"},
            "items": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/item"}},
            "status": {"oneOf": [{"const": "open"}, {"const": "paid"}, {"type": "string", "maxLength": 4, "pattern": "^[a-z]+$"}]}
          },
          "additionalProperties": false,
          "$defs": {"item": {"type": "object", "properties": {"price": {"type": "number", "maximum": 100, "multipleOf": 0.01}}}}
        }
        """#

    @Test func validAndInvalidDocumentsGiveExitOneAndEveryReason() async throws {
        let directory = try folder([
            "order.schema.json": Self.orderSchema,
            "good.json": #"{"id": "ord_1", "items": [{"price": 19.99}], "status": "sent"}"#,
            "bad.json": #"{"id": "x", "items": [{"price": 250}], "status": "open", "extra": true}"#,
        ])
        let result = try await CommandLineRunner.run(
            ["schema", "validate", "order.schema.json", "good.json", "bad.json"], in: directory)
        #expect(result.status == 1, "\(result)")
        let out = result.standardOutput
        #expect(out.contains("valid   good.json"), "\(result)")
        #expect(out.contains("invalid bad.json: 4 errors"), "\(result)")
        #expect(
            out.contains(#"/id: pattern: expected a string matching /^ord_[0-9]+$/, found string "x""#), "\(result)")
        #expect(out.contains("/items/0/price: maximum: expected a number at most 100, found 250"), "\(result)")
        #expect(out.contains(#"/extra: additionalProperties: property "extra" is not declared"#), "\(result)")
        // "open" is the first constant and a string of at most 4 characters: two alternatives fit.
        #expect(
            out.contains("/status: oneOf: expected a value that fits exactly one of the 3 alternatives"), "\(result)")
        #expect(out.contains("which fits 2 (0, 2)"), "\(result)")
        #expect(out.hasSuffix("1 valid, 1 invalid\n"), "\(result)")
        #expect(result.standardError.isEmpty, "\(result)")

        let valid = try await CommandLineRunner.run(
            ["schema", "validate", "order.schema.json", "good.json"], in: directory)
        #expect(valid.status == 0, "\(valid)")
    }

    /// `--format json` is the standard's basic output per document: valid, errors with instanceLocation,
    /// keywordLocation (through `$ref`), absoluteKeywordLocation and error.
    @Test func jsonIsTheBasicOutputStructure() async throws {
        let directory = try folder([
            "order.schema.json": Self.orderSchema, "bad.json": #"{"id": "ord_2", "items": [{"price": 100.001}]}"#,
        ])
        let result = try await CommandLineRunner.run(
            ["schema", "validate", "order.schema.json", "bad.json", "--format", "json"], in: directory)
        #expect(result.status == 1, "\(result)")
        let output = try JSONValue(parsing: Data(result.standardOutput.utf8))
        #expect(output["valid"] == .bool(false))
        guard case .array(let documents)? = output["documents"], let document = documents.first,
            case .array(let errors)? = document["errors"]
        else {
            Issue.record("no documents: \(result)")
            return
        }
        #expect(document["instance"] == .string("bad.json"))
        let locations = errors.compactMap { $0["keywordLocation"] }
        #expect(locations.contains(.string("/properties/items/items/$ref/properties/price/maximum")), "\(errors)")
        #expect(locations.contains(.string("/properties/items/items/$ref/properties/price/multipleOf")), "\(errors)")
        let absolute = errors.compactMap { $0["absoluteKeywordLocation"] }
        #expect(
            absolute.contains { value in
                if case .string(let text) = value {
                    return text.hasSuffix("order.schema.json#/$defs/item/properties/price/maximum")
                }
                return false
            }, "\(errors)")
        #expect(errors.allSatisfy { $0["instanceLocation"] == .string("/items/0/price") && $0["error"] != nil })
    }

    /// A schema that is not one exits 2 naming the file and the JSON Pointer, and prints no verdict.
    @Test(arguments: [
        ("42", "/", "object or boolean"),
        (#"{"$schema": "https://example.com/my-dialect"}"#, "/$schema", "known dialect"),
        (##"{"properties": {"a": {"$ref": "#/$defs/missing"}}}"##, "/properties/a/$ref", "leads nowhere"),
        (
            ##"{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}"##,
            "/$defs/b/$ref", "cycle"
        ),
        (#"{"properties": {"code": {"pattern": "([a-z]"}}}"#, "/properties/code/pattern", "regular expression"),
        (#"{"minLength": "ten"}"#, "/minLength", "expected integer (the 2020-12 metaschema's type)"),
    ])
    func aSchemaThatIsNotOneIsBadInput(_ schema: String, _ pointer: String, _ expected: String) async throws {
        let directory = try folder(["schema.json": schema, "doc.json": "{}"])
        let result = try await CommandLineRunner.run(["schema", "validate", "schema.json", "doc.json"], in: directory)
        #expect(result.status == 2, "\(result)")
        #expect(result.standardError.contains("schema.json"), "\(result)")
        #expect(result.standardError.contains(": \(pointer): expected"), "\(result)")
        #expect(result.standardError.contains(expected), "\(result)")
        #expect(result.standardOutput.isEmpty, "\(result)")
    }

    /// Deep and large input: a 10,000-deep schema and a 100,000-deep document are refused with the place, never a
    /// crash.
    @Test func deepInputIsRefusedWithThePlace() async throws {
        let deepSchema =
            String(repeating: #"{"items":"#, count: 10_000) + "true" + String(repeating: "}", count: 10_000)
        let deepDocument = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let directory = try folder([
            "deep.schema.json": deepSchema, "schema.json": #"{"type": "array"}"#, "deep.json": deepDocument,
            "doc.json": "[]",
        ])
        let schema = try await CommandLineRunner.run(
            ["schema", "validate", "deep.schema.json", "doc.json"], in: directory)
        #expect(schema.status == 2, "\(schema)")
        #expect(schema.standardError.contains("deep.schema.json:1:"), "\(schema)")
        let document = try await CommandLineRunner.run(
            ["schema", "validate", "schema.json", "deep.json"], in: directory)
        #expect(document.status == 2, "\(document)")
        #expect(document.standardError.contains("deep.json:1:"), "\(document)")
    }

    /// A pattern that backtracks without end stops at the time limit with an error naming the pattern: exit 2,
    /// not a hang and not a pass. (The lookahead keeps ICU; the regular `^(a+)+$` is answered by the automaton:
    /// exit 1, at once.)
    @Test(.hangGuard) func aPathologicalPatternStopsAtTheTimeLimit() async throws {
        let directory = try folder([
            "schema.json": #"{"pattern": "^(?=(a+)+$)"}"#, "regular.json": #"{"pattern": "^(a+)+$"}"#,
            "doc.json": "\"" + String(repeating: "a", count: 40) + "b\"",
        ])
        let result = try await CommandLineRunner.run(["schema", "validate", "schema.json", "doc.json"], in: directory)
        #expect(result.status == 2, "\(result)")
        #expect(result.standardError.contains("doc.json"), "\(result)")
        #expect(result.standardError.contains("^(?=(a+)+$)"), "\(result)")
        let regular = try await CommandLineRunner.run(
            ["schema", "validate", "regular.json", "doc.json"], in: directory)
        #expect(regular.status == 1, "\(regular)")
        #expect(regular.standardOutput.contains("^(a+)+$"), "\(regular)")
    }

    /// A credential in a document never reaches the output, in text or JSON, although the error is at its place.
    @Test func aSecretInTheDocumentIsNeverPrinted() async throws {
        let secret = "hunter2-Sup3rSecret"
        let directory = try folder([
            "schema.json": #"{"properties": {"password": {"maxLength": 8}, "api_token": {"enum": ["x"]}}}"#,
            "doc.json": #"{"password": "\#(secret)", "api_token": "\#(secret)-2"}"#,
        ])
        for format in ["text", "json"] {
            let result = try await CommandLineRunner.run(
                ["schema", "validate", "schema.json", "doc.json", "--format", format], in: directory)
            #expect(result.status == 1, "\(result)")
            #expect(result.standardOutput.contains("/password"), "\(result)")
            #expect(!result.standardOutput.contains(secret), "\(result)")
            #expect(!result.standardError.contains(secret), "\(result)")
        }
    }

    /// Keywords the dialect does not define are counted in the summary line; --strict makes them bad input.
    @Test func ignoredKeywordsAreCountedAndStrictRefusesThem() async throws {
        let directory = try folder([
            "schema.json":
                #"{"$schema": "http://json-schema.org/draft-07/schema#", "maxLenght": 3, "prefixItems": []}"#,
            "doc.json": #""abcdef""#,
        ])
        let lax = try await CommandLineRunner.run(["schema", "validate", "schema.json", "doc.json"], in: directory)
        #expect(lax.status == 0, "\(lax)")
        #expect(lax.standardOutput.hasSuffix("1 valid, 0 invalid, 2 keywords ignored (not draft-07)\n"), "\(lax)")
        let strict = try await CommandLineRunner.run(
            ["schema", "validate", "schema.json", "doc.json", "--strict"], in: directory)
        #expect(strict.status == 2, "\(strict)")
        #expect(
            strict.standardError.contains("schema.json: /maxLenght: expected only keywords of draft-07"), "\(strict)")
    }

    /// Standard input, and formats as assertions unless turned off.
    @Test func standardInputAndFormatAssertion() async throws {
        let directory = try folder(["schema.json": #"{"format": "date-time"}"#])
        let input = Data(#""2026-02-30T10:00:00Z""#.utf8)
        let asserted = try await CommandLineRunner.runProcess(
            CommandLineRunner.executable, ["schema", "validate", "schema.json", "-"], environment: ["NO_COLOR": "1"],
            in: directory, input: input)
        #expect(asserted.status == 1, "\(asserted)")
        #expect(asserted.standardOutput.contains("invalid <stdin>: 1 error"), "\(asserted)")
        #expect(asserted.standardOutput.contains("format: expected format date-time"), "\(asserted)")
        let annotated = try await CommandLineRunner.runProcess(
            CommandLineRunner.executable, ["schema", "validate", "schema.json", "-", "--no-format-assertion"],
            environment: ["NO_COLOR": "1"], in: directory, input: input)
        #expect(annotated.status == 0, "\(annotated)")
    }
}
