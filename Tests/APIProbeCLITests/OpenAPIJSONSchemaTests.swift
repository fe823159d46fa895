import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

/// An OpenAPI 3.1 description whose schemas use what JSON Schema 2020-12 allows and OpenAPIKit's typed model
/// refused (boolean schemas, `$anchor`, `$dynamicRef`, `$ref` to the metaschema, `$id` bases): read by `import`,
/// `check` and `diff`, and judged by the one validator, every keyword.
@Suite(.tags(.commandLine), .temporaryFolder)
struct OpenAPIJSONSchemaTests {
    static let spec = ##"""
        {
          "openapi": "3.1.0",
          "info": {"title": "Payments", "version": "1"},
          "paths": {
            "/payments": {
              "post": {
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewPayment"}}}},
                "responses": {
                  "201": {"description": "made", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Payment"}}}},
                  "400": {"description": "bad", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}
                }
              }
            }
          },
          "components": {
            "schemas": {
              "NewPayment": {
                "type": "object", "required": ["amount", "reference"], "additionalProperties": false,
                "properties": {
                  "amount": {"type": "integer", "minimum": 1, "maximum": 1000000},
                  "reference": {"type": "string", "minLength": 3, "maxLength": 12, "pattern": "^[A-Z0-9-]+$"},
                  "note": true,
                  "legacy": false
                }
              },
              "Payment": {
                "$id": "https://payments.example/schemas/payment",
                "type": "object", "required": ["id", "status", "tags"],
                "properties": {
                  "id": {"$ref": "#id"},
                  "status": {"enum": ["pending", "paid"]},
                  "tags": {"$ref": "#/$defs/tags"},
                  "meta": {"$ref": "https://json-schema.org/draft/2020-12/schema"}
                },
                "$defs": {
                  "identifier": {"$anchor": "id", "type": "string", "pattern": "^pay_[a-z0-9]+$"},
                  "tags": {"$dynamicAnchor": "tag", "type": "array", "items": {"type": "string"}, "uniqueItems": true}
                }
              },
              "Problem": {
                "oneOf": [
                  {"type": "object", "required": ["code"], "properties": {"code": {"const": "INVALID_REQUEST"}}},
                  {"type": "object", "required": ["code"], "properties": {"code": {"const": "NOT_FOUND"}}},
                  {"type": "object", "required": ["code", "detail"], "properties": {"code": {"type": "string"}}}
                ]
              }
            }
          }
        }
        """##

    private func fixture(request: String, status: Int, response: String) -> String {
        ##"{"request": {"method": "POST", "url": "https://api.example.com/payments", "headers": {"Content-Type": "application/json"}, "body": "##
            + request + ##"}, "response": {"status": "## + String(status)
            + ##", "headers": {"Content-Type": "application/json"}, "body": "## + response + "}}"
    }

    @Test func aDescriptionUsingAllOf2020_12IsReadAndEveryKeywordJudged() async throws {
        let directory = try TemporaryFolder.make("openapi-2020-12")
        try Data(Self.spec.utf8).write(to: directory.appendingPathComponent("payments.json"))
        let stubs = directory.appendingPathComponent("Stubs/payments")
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
        let fixtures = [
            "good": fixture(
                request: #"{"amount": 100, "reference": "ORD-1"}"#, status: 201,
                response: #"{"id": "pay_1a", "status": "paid", "tags": ["a"], "meta": {"type": "object"}}"#),
            "bad": fixture(
                request: #"{"amount": 0, "reference": "ord_1", "legacy": 1}"#, status: 201,
                response: #"{"id": "PAY-1", "status": "paid", "tags": ["a", "a"], "meta": {"type": 12}}"#),
            "problemTwo": fixture(
                request: #"{"amount": 5, "reference": "ABC"}"#, status: 400,
                response: #"{"code": "INVALID_REQUEST", "detail": "x"}"#),
            "problemNone": fixture(
                request: #"{"amount": 5, "reference": "ABC"}"#, status: 400, response: #"{"kode": "X"}"#),
        ]
        for (name, text) in fixtures {
            try Data(text.utf8).write(to: stubs.appendingPathComponent("\(name).json"))
        }

        let imported = try await CommandLineRunner.run(["openapi", "import", "payments.json"], in: directory)
        #expect(imported.status == 0, "\(imported)")

        let check = try await CommandLineRunner.run(
            ["openapi", "check", "payments.json", "--format", "json"], in: directory)
        #expect(check.status == 1, "\(check)")
        let report = try JSONValue(parsing: Data(check.standardOutput.utf8))
        guard case .array(let violations)? = report["violations"] else {
            Issue.record("\(check)")
            return
        }
        func found(_ file: String) -> [String] {
            violations.filter { $0["file"] == .string("Stubs/payments/\(file).json") }.compactMap { violation in
                guard case .string(let pointer)? = violation["pointer"], case .string(let kind)? = violation["kind"]
                else { return nil }
                return "\(pointer) \(kind)"
            }
        }
        #expect(found("good") == [], "\(check)")
        #expect(
            Set(found("bad")) == [
                "/body/amount request-body", "/body/legacy request-body", "/body/reference request-body",
                "/id pattern", "/meta/type anyOf", "/meta/type enum", "/tags uniqueItems",
            ], "\(check)")
        #expect(found("problemTwo") == [" oneOf"], "\(check)")
        #expect(found("problemNone").first == " oneOf", "\(check)")
        let messages = violations.compactMap { $0["message"] }
        #expect(
            messages.contains(
                .string(
                    #"expected a value that fits exactly one of the 3 alternatives, found object, which fits 2 (0, 2)"#)
            ),
            "\(check)")

        let diff = try await CommandLineRunner.run(
            ["openapi", "diff", "payments.json", "payments.json"], in: directory)
        #expect(diff.status == 0, "\(diff)")
    }
}
