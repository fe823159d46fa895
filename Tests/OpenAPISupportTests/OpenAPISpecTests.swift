import APIProbeTestSupport
import Foundation
import HTTPFixtures
import JSONShape
import Testing

@testable import OpenAPISupport

@Suite(.temporaryFolder)
struct OpenAPISpecTests {
    /// A one-operation 3.x document whose 200 response has `schema` (YAML flow text) and `components`.
    private func spec(version: String = "3.0.3", schema: String, components: String = "{}") throws -> OpenAPISpec {
        let text = """
            openapi: \(version)
            info: {title: t, version: '1'}
            paths:
              /items/{id}:
                get:
                  operationId: getItem
                  parameters:
                    - {name: id, in: path, required: true, schema: {type: integer}}
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: \(schema)
            components:
              schemas: \(components)
            """
        return try OpenAPISpec(data: Data(text.utf8), file: "spec.yaml")
    }

    private func shape(_ spec: OpenAPISpec) throws -> ShapeNode {
        try #require(spec.operations.first?.responses.first?.shape)
    }

    @Test func nullableIn30AndNullTypeIn31BothGiveNull() throws {
        let old = try shape(spec(schema: "{type: object, properties: {a: {type: string, nullable: true}}}"))
        let new = try shape(spec(version: "3.1.0", schema: "{type: object, properties: {a: {type: [string, 'null']}}}"))
        #expect(old.properties["a"]?.types == [.string, .null])
        #expect(new == old)
    }

    @Test func allOfIsMergedAndOneOfIsJoinedWithANote() throws {
        let spec = try spec(
            schema: """
                {allOf: [{$ref: '#/components/schemas/Base'}, {type: object, required: [b], properties: {b: {type: integer}}}]}
                """,
            components: """
                {Base: {type: object, required: [a], properties: {a: {oneOf: [{type: string}, {type: integer}]}}}}
                """)
        let shape = try shape(spec)
        #expect(shape.required == ["a", "b"])
        #expect(shape.properties["a"]?.types == [.string, .integer])
        #expect(
            spec.notes.map(\.description) == [
                "/components/schemas/Base/properties/a: oneOf of 2 schemas kept as one shape (types joined; a property is required only when every alternative requires it)"
            ])
    }

    @Test func enumFormatAndReadWriteOnly() throws {
        let shape = try shape(
            spec(
                schema: """
                    {type: object, required: [state, secret], properties: {state: {type: string, enum: [on, off]}, \
                    when: {type: string, format: date-time}, secret: {type: string, writeOnly: true}, \
                    id: {type: string, readOnly: true}}}
                    """))
        #expect(shape.properties["state"]?.enumValues == ["off", "on"])
        #expect(shape.properties["when"]?.format == .dateTime)
        #expect(shape.properties["secret"] == nil)
        #expect(shape.required == ["state"])
        #expect(shape.properties["id"]?.types == .string)
    }

    @Test func aRecursiveReferenceIsACycleNotACut() throws {
        let spec = try spec(
            schema: "{$ref: '#/components/schemas/Node'}",
            components:
                "{Node: {type: object, properties: {children: {type: array, items: {$ref: '#/components/schemas/Node'}}}}}"
        )
        let shape = try shape(spec)
        #expect(shape.referenceName == "Node")
        #expect(shape.resolved.properties["children"]?.items?.referenceName == "Node")
        #expect(shape.resolved.properties["children"]?.items?.resolved == shape.resolved)
        #expect(spec.notes.isEmpty)
    }

    /// Alternatives that are references make one definition of their union, so a union of two recursive
    /// schemas ends; its properties are required only where both alternatives require them.
    @Test func aUnionOfRecursiveReferencesIsOneDefinition() throws {
        let spec = try spec(
            schema: "{oneOf: [{$ref: '#/components/schemas/A'}, {$ref: '#/components/schemas/B'}]}",
            components: """
                {A: {type: object, required: [id, next], properties: {id: {type: string}, next: {$ref: '#/components/schemas/A'}}}, \
                B: {type: object, required: [id], properties: {id: {type: integer}, next: {$ref: '#/components/schemas/B'}}}}
                """
        )
        let shape = try shape(spec)
        #expect(shape.referenceName == "A|B")
        let union = shape.resolved
        #expect(union.required == ["id"])
        #expect(union.properties["id"]?.types == [.string, .integer])
        #expect(union.properties["next"]?.referenceName == "A|B")
    }

    @Test func mapsAndClosedObjects() throws {
        let spec = try spec(
            schema: """
                {type: object, additionalProperties: false, properties: {counts: {type: object, additionalProperties: {type: integer}}}}
                """)
        let shape = try shape(spec)
        #expect(shape.properties["counts"]?.additionalProperties?.types == .integer)
        #expect(
            spec.notes.map(\.description) == [
                "/paths/~1items~1{id}/get/responses/200/content/application~1json/schema: additionalProperties false is not kept: the snapshot allows other properties (openapi check enforces it)"
            ])
    }

    @Test func operationsMatchByTemplateAndBasePath() throws {
        var spec = try spec(schema: "{type: object}")
        spec.basePaths = ["/v1"]
        let match = try #require(spec.operation(method: "get", url: "https://h.example/v1/items/42?x=1"))
        #expect(match.operation.name == "GET /items/{id}")
        #expect(match.pathValues == ["id": "42"])
        #expect(spec.operation(method: "POST", url: "/v1/items/42") == nil)
    }

    @Test func checkReportsAdditionalEnumAndPathParameterViolations() throws {
        let spec = try spec(
            schema: "{type: object, additionalProperties: false, properties: {state: {type: string, enum: [on, off]}}}")
        let directory = try TemporaryFolder.make("openapi")
        let store = FixtureStore(directory: directory)
        let exchange = Exchange(
            request: RecordedRequest(url: "https://h.example/items/abc"),
            response: RecordedResponse(
                status: 200, body: .json(try JSONValue(parsing: Data(#"{"state": "dim", "extra": 1}"#.utf8)))))
        try store.write(exchange, named: "items/get")
        let report = try spec.check(store)
        let file = store.displayPath(for: store.url(for: "items/get"))
        #expect(
            report.violations.map(\.description) == [
                "\(file): GET /items/{id}: /path/id: parameter: path parameter \"id\": expected integer, found string \"abc\"",
                "\(file): GET /items/{id}: /extra: additional: property \"extra\" is not declared (additionalProperties is false)",
                "\(file): GET /items/{id}: /state: enum: expected one of \"on\", \"off\", found string \"dim\"",
            ])
        #expect(!report.passed)
    }

    @Test func aYAMLAliasBombIsBadInputNotAHang() throws {
        var text = "openapi: 3.0.3\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            text +=
                "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
                + "]\n"
        }
        #expect(throws: InputError.self) { try OpenAPISpec(data: Data(text.utf8), file: "bomb.yaml") }
        #expect(
            OpenAPISpec.isJSONNumber("-1.5e3") && !OpenAPISpec.isJSONNumber("0x1F") && !OpenAPISpec.isJSONNumber("01"))
    }

    @Test func aJSONSpecWithASyntaxErrorNamesLineAndColumn() throws {
        let text = "{\n  \"openapi\": \"3.1.0\",\n  \"paths\": {,}\n}"
        #expect {
            try OpenAPISpec(data: Data(text.utf8), file: "spec.json")
        } throws: { error in
            (error as? InputError)?.description == "spec.json:3:13: expected a string key, found ','"
        }
    }

    @Test func aJSON31SpecIsReadWithServersBasePathAndRefsToParameters() throws {
        let text = """
            {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
             "servers": [{"url": "https://api.example.com/v2/"}],
             "paths": {"/users/{user}": {"parameters": [{"$ref": "#/components/parameters/User"}],
               "get": {"responses": {"2XX": {"description": "ok", "content": {"application/json": {"schema":
                 {"type": ["object", "null"], "properties": {"login": {"const": "octocat"}}}}}}}}}},
             "components": {"parameters": {"User": {"name": "user", "in": "path", "required": true,
               "schema": {"type": "string"}}}}}
            """
        let spec = try OpenAPISpec(data: Data(text.utf8), file: "spec.json")
        let operation = try #require(spec.operations.first)
        #expect(operation.id == "get_users_user")
        #expect(operation.parameters.map(\.name) == ["user"])
        #expect(spec.basePaths == ["/v2"])
        #expect(
            spec.operation(method: "GET", url: "https://api.example.com/v2/users/octocat")?.pathValues == [
                "user": "octocat"
            ])
        let shape = try #require(operation.response(for: 201)?.shape)
        #expect(shape.types == [.object, .null])
        #expect(shape.properties["login"]?.enumValues == ["octocat"])
    }
}
