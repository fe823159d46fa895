import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

@testable import OpenAPISupport

/// A description whose pattern is valid only in ECMA-262's Annex B (PayPal's orders API writes its email pattern
/// so): read, with a note naming the pattern's place, and the pattern applied; it stopped every command before.
struct AnnexBDescriptionTests {
    static func description(pattern: String) -> Data {
        let escaped = String(decoding: JSONValue.string(pattern).serialized(), as: UTF8.self)
        return Data(
            """
            {"openapi": "3.0.3", "info": {"title": "Orders", "version": "1"},
             "paths": {"/v2/orders": {"post": {
               "requestBody": {"required": true, "content": {"application/json": {"schema": {
                 "type": "object", "required": ["email"],
                 "properties": {"email": {"$ref": "#/components/schemas/email"}}}}}},
               "responses": {"201": {"description": "Created"}}}}},
             "components": {"schemas": {"email": {"type": "string", "pattern": \(escaped)}}}}
            """.utf8)
    }

    @Test func theDescriptionIsReadWithANoteAndThePatternHolds() throws {
        let spec = try OpenAPISpec(
            data: Self.description(pattern: RealPatterns.paypalEmail), file: "orders.json")
        let notes = spec.notes.filter { $0.message.contains("Annex B") }
        #expect(notes.map(\.pointer) == ["/components/schemas/email/pattern"], "\(spec.notes)")
        #expect(notes.first?.message.contains("a lone ']' is not allowed with the u flag") == true)
        func problems(_ email: String) throws -> Int {
            let request = RecordedRequest(
                method: "POST", url: "https://api.example.com/v2/orders",
                headers: ["Content-Type": "application/json"],
                body: .json(.object([("email", .string(email))])))
            return try spec.requestProblems(request)?.problems.count ?? -1
        }
        #expect(try problems("buyer@example.com") == 0)
        #expect(try problems("not an address") == 1)
    }

    @Test func aPatternValidInNeitherIsStillAnError() throws {
        #expect(throws: InputError.self) {
            try OpenAPISpec(data: Self.description(pattern: "(unclosed"), file: "orders.json")
        }
    }
}
