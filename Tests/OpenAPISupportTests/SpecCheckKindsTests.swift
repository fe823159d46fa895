import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

@testable import OpenAPISupport

/// `openapi check`'s kinds that the recipes fixtures cannot show: request bodies, header parameters, and a
/// stubs folder holding several APIs.
@Suite(.temporaryFolder)
struct SpecCheckKindsTests {
    static let spec = """
        openapi: 3.1.0
        info: {title: orders, version: '1'}
        servers: [{url: 'https://orders.example.com/v1'}]
        paths:
          /orders:
            post:
              operationId: createOrder
              parameters:
                - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
                - {name: X-Retry, in: header, required: false, schema: {type: integer}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [item, quantity]
                      properties:
                        item: {type: string}
                        quantity: {type: integer}
              responses:
                '201':
                  description: created
                  content:
                    application/json:
                      schema: {type: object, properties: {id: {type: integer}}}
        """

    private func check(_ exchanges: [String: Exchange], api: String = "orders") throws -> SpecCheckReport {
        let root = try TemporaryFolder.make("spec-check")
        let store = FixtureStore(directory: root)
        for (name, exchange) in exchanges { try store.write(exchange, named: name) }
        let spec = try OpenAPISpec(data: Data(Self.spec.utf8), file: "orders.yaml")
        return try spec.check(OpenAPISpec.fixtures(of: api, in: root), displayRoot: root)
    }

    private func order(body: String?, headers: HeaderFields = ["Idempotency-Key": "k1"]) throws -> Exchange {
        Exchange(
            request: RecordedRequest(
                method: "POST", url: "https://orders.example.com/v1/orders", headers: headers,
                body: try body.map { .json(try JSONValue(parsing: Data($0.utf8))) }),
            response: RecordedResponse(status: 201, body: .json(.object([("id", .number("1"))]))))
    }

    @Test func aRequestBodyThatDoesNotFitIsARequestBodyViolation() throws {
        let report = try check([
            "orders/good": try order(body: #"{"item": "tea", "quantity": 2}"#),
            "orders/retyped": try order(body: #"{"item": "tea", "quantity": "two"}"#),
            "orders/missing": try order(body: nil),
        ])
        #expect(
            report.violations.map(\.description) == [
                "orders/missing.json: POST /orders: /body: request-body: the request body is required",
                "orders/retyped.json: POST /orders: /body/quantity: request-body: type: expected integer, found string \"two\"",
            ])
    }

    @Test func aRequiredHeaderMissingOrAHeaderOfTheWrongTypeIsAParameterViolation() throws {
        let report = try check([
            "orders/noKey": try order(body: #"{"item": "tea", "quantity": 2}"#, headers: [:]),
            "orders/badRetry": try order(
                body: #"{"item": "tea", "quantity": 2}"#, headers: ["idempotency-key": "k2", "X-Retry": "often"]),
        ])
        #expect(
            report.violations.map(\.description) == [
                "orders/badRetry.json: POST /orders: /header/X-Retry: parameter: header parameter \"X-Retry\": expected integer, found string \"often\"",
                "orders/noKey.json: POST /orders: /header/Idempotency-Key: parameter: required header parameter \"Idempotency-Key\" is missing",
            ])
    }

    @Test func anotherAPIsFixturesInTheStubsFolderAreNotThisSpecs() throws {
        let other = Exchange(
            request: RecordedRequest(url: "https://recipes.example.com/api/search?q=x"),
            response: RecordedResponse(status: 200, body: .json(.object([]))))
        let report = try check([
            "orders/good": try order(body: #"{"item": "tea", "quantity": 2}"#), "recipes/search": other,
        ])
        #expect(report.fixtureCount == 1)
        #expect(report.passed)
        // Without a folder named after the API, every fixture is checked: the other one matches no operation.
        let whole = try check(
            ["orders/good": try order(body: #"{"item": "tea", "quantity": 2}"#), "recipes/search": other],
            api: "shop")
        #expect(whole.unmatched == ["recipes/search.json"])
        #expect(whole.violations.map(\.kind) == [.noOperation])
    }

    /// Stripe writes `nullable: true` beside `anyOf` (no `type`): null is allowed there.
    @Test func nullableBesideAnyOfAdmitsNull() throws {
        let text = """
            openapi: 3.0.0
            info: {title: t, version: '1'}
            paths:
              /charges/{id}:
                get:
                  parameters: [{name: id, in: path, required: true, schema: {type: string}}]
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema:
                            type: object
                            properties:
                              customer: {nullable: true, anyOf: [{type: string}, {type: object}]}
            """
        let spec = try OpenAPISpec(data: Data(text.utf8), file: "charges.yaml")
        let root = try TemporaryFolder.make("spec-null")
        let store = FixtureStore(directory: root)
        for (name, value) in [("null", JSONValue.null), ("number", .number("3"))] {
            try store.write(
                Exchange(
                    request: RecordedRequest(url: "https://api.example.com/charges/ch_1"),
                    response: RecordedResponse(status: 200, body: .json(.object([("customer", value)])))),
                named: name)
        }
        let report = try spec.check(store, displayRoot: root)
        // The anyOf that nothing fits, and the closest alternative's reason: both about number.json only.
        #expect(Set(report.violations.map(\.file)) == ["number.json"])
        #expect(report.violations.map(\.kind.rawValue) == ["anyOf", "type"], "\(report.violations)")
    }
}
