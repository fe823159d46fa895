import APIProbeTestSupport
import Foundation
import RecipesServer
import Testing

@Suite(.tags(.commandLine), .temporaryFolder)
struct OpenAPICommandTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let recipesSpec = repository.appendingPathComponent("openapi/recipes.yaml").path

    /// A folder with `Stubs/recipes/<name>.json` holding the committed fixture `name`, changed by `mutate`.
    private func mutatedFixture(_ name: String, _ mutate: (inout [String: Any]) -> Void) throws -> URL {
        let directory = try TemporaryFolder.make("openapi-cli")
        let folder = directory.appendingPathComponent("Stubs/recipes")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = Self.repository.appendingPathComponent("Stubs/recipes/\(name).json")
        var fixture = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any])
        mutate(&fixture)
        try JSONSerialization.data(withJSONObject: fixture).write(to: folder.appendingPathComponent("\(name).json"))
        return directory
    }

    private func mutatingRecipe(_ change: @escaping (inout [String: Any]) -> Void) -> (inout [String: Any]) -> Void {
        { fixture in
            var response = fixture["response"] as? [String: Any] ?? [:]
            var body = response["body"] as? [String: Any] ?? [:]
            var recipe = body["recipe"] as? [String: Any] ?? [:]
            change(&recipe)
            body["recipe"] = recipe
            response["body"] = body
            fixture["response"] = response
        }
    }

    private func checkJSON(in directory: URL) async throws -> (CommandResult, [[String: String]]) {
        let result = try await CommandLineRunner.run(
            ["openapi", "check", Self.recipesSpec, "--stubs", "Stubs", "--format", "json"], in: directory)
        let report = try #require(
            JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result)")
        return (result, report["violations"] as? [[String: String]] ?? [])
    }

    @Test func checkPassesOnTheCommittedRecipesFixtures() async throws {
        let result = try await CommandLineRunner.run(
            ["openapi", "check", Self.recipesSpec, "--stubs", "Stubs/recipes"], in: Self.repository)
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput == "6 fixtures, 3 operations: 0 violations, 0 unmatched\n", "\(result)")
    }

    @Test func aRemovedFieldIsARequiredViolation() async throws {
        let directory = try mutatedFixture("get", mutatingRecipe { $0["title"] = nil })
        let (result, violations) = try await checkJSON(in: directory)
        #expect(result.status == 1, "\(result)")
        #expect(
            violations == [
                [
                    "file": "Stubs/recipes/get.json", "operation": "GET /api/get", "pointer": "/recipe/title",
                    "kind": "required", "message": "required property \"title\" is missing",
                ]
            ])
    }

    @Test func aRetypedFieldIsATypeViolation() async throws {
        let directory = try mutatedFixture("get", mutatingRecipe { $0["social_rank"] = "99.9" })
        let (result, violations) = try await checkJSON(in: directory)
        #expect(result.status == 1, "\(result)")
        #expect(
            violations == [
                [
                    "file": "Stubs/recipes/get.json", "operation": "GET /api/get", "pointer": "/recipe/social_rank",
                    "kind": "type", "message": "expected number, found string \"99.9\"",
                ]
            ])
    }

    @Test func aFieldMadeNullIsATypeViolation() async throws {
        let directory = try mutatedFixture("get", mutatingRecipe { $0["publisher"] = NSNull() })
        let (result, violations) = try await checkJSON(in: directory)
        #expect(result.status == 1, "\(result)")
        #expect(
            violations == [
                [
                    "file": "Stubs/recipes/get.json", "operation": "GET /api/get", "pointer": "/recipe/publisher",
                    "kind": "type", "message": "expected string, found null",
                ]
            ])
    }

    @Test func anUndeclaredStatusIsAStatusViolation() async throws {
        let directory = try mutatedFixture("search") { fixture in
            var response = fixture["response"] as? [String: Any] ?? [:]
            response["status"] = 418
            fixture["response"] = response
        }
        let (result, violations) = try await checkJSON(in: directory)
        #expect(result.status == 1, "\(result)")
        #expect(
            violations == [
                [
                    "file": "Stubs/recipes/search.json", "operation": "GET /api/search", "pointer": "",
                    "kind": "status-undeclared", "message": "status 418 is not declared (declared: 200, 400, 503)",
                ]
            ])
    }

    @Test func aBadFormatAnUndeclaredParameterAndAnUnknownPathAreReported() async throws {
        let directory = try mutatedFixture("get") { fixture in
            var request = fixture["request"] as? [String: Any] ?? [:]
            request["url"] = "https://recipes.example.com/api/get?rId=1&api_key=s3cr3t-value"
            fixture["request"] = request
            self.mutatingRecipe { $0["image_url"] = "not a link" }(&fixture)
        }
        let written = directory.appendingPathComponent("Stubs/recipes/get.json")
        var moved = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: written)) as? [String: Any])
        moved["request"] = ["method": "GET", "url": "https://recipes.example.com/api/nope?token=abc"]
        try JSONSerialization.data(withJSONObject: moved).write(
            to: directory.appendingPathComponent("Stubs/recipes/nope.json"))
        let result = try await CommandLineRunner.run(
            ["openapi", "check", Self.recipesSpec, "--stubs", "Stubs"], in: directory)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.standardOutput == """
                violation Stubs/recipes/get.json: GET /api/get: /query/api_key: parameter: query parameter "api_key" is not declared
                violation Stubs/recipes/get.json: GET /api/get: /recipe/image_url: format: expected format uri, found string "not a link"
                violation Stubs/recipes/nope.json: no-operation: no operation for GET /api/nope
                unmatched Stubs/recipes/nope.json
                2 fixtures, 3 operations: 3 violations, 1 unmatched

                """, "\(result)")
        #expect(!result.standardOutput.contains("s3cr3t"))
    }

    @Test func importWritesSnapshotsAndOperationsAndReimportChangesNoByte() async throws {
        let directory = try TemporaryFolder.make("openapi-import")
        let first = try await CommandLineRunner.run(["openapi", "import", Self.recipesSpec], in: directory)
        #expect(first.status == 0, "\(first)")
        let folder = directory.appendingPathComponent("Snapshots/recipes")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(
            names == ["getRecipe.schema.json", "health.schema.json", "operations.json", "searchRecipes.schema.json"])
        var before: [String: Data] = [:]
        for name in names { before[name] = try Data(contentsOf: folder.appendingPathComponent(name)) }
        let second = try await CommandLineRunner.run(["openapi", "import", Self.recipesSpec], in: directory)
        #expect(second.status == 0, "\(second)")
        #expect(second.standardOutput.hasPrefix("same    Snapshots/recipes/searchRecipes.schema.json\n"), "\(second)")
        #expect(!second.standardOutput.contains("wrote"))
        for name in names {
            #expect(try Data(contentsOf: folder.appendingPathComponent(name)) == before[name], "\(name)")
        }
        let operations = String(decoding: before["operations.json"] ?? Data(), as: UTF8.self)
        #expect(operations.hasSuffix("}\n"))
        #expect(operations.contains("\n  \"operations\": [\n    {\n      \"method\": \"GET\",\n"))
        // The snapshot of getRecipe merges the allOf of the spec: the committed (inferred) snapshot says the same.
        let imported = try Data(contentsOf: folder.appendingPathComponent("getRecipe.schema.json"))
        let inferred = try Data(contentsOf: Self.repository.appendingPathComponent("Snapshots/recipes/get.schema.json"))
        #expect(
            String(decoding: imported, as: UTF8.self).replacingOccurrences(of: "\"samples\": 0", with: "\"samples\": 1")
                == String(decoding: inferred, as: UTF8.self))
    }

    @Test(arguments: [
        (
            "external.yaml",
            "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: x\n          content:\n            application/json:\n              schema: {$ref: 'common.yaml#/Recipe'}\n",
            "external.yaml: /paths/~1a/get/responses/200/content/application~1json/schema/$ref: expected a reference to a schema in this document or the registry, found \"common.yaml#/Recipe\", which leads nowhere (apiprobe:///common.yaml#/Recipe: external references are not read; bundle the description into one file)"
        ),
        (
            "cycle.yaml",
            "openapi: 3.1.0\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: x\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/A'}\ncomponents:\n  schemas:\n    A: {$ref: '#/components/schemas/B'}\n    B: {allOf: [{$ref: '#/components/schemas/A'}]}\n",
            "cycle.yaml: /components/schemas/B/allOf/0/$ref: expected a $ref cycle with an object or array in between, found a cycle with none: #/components/schemas/A → #/components/schemas/B → #/components/schemas/A"
        ),
        (
            "direct.yaml",
            "openapi: 3.1.0\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: x\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/A'}\ncomponents:\n  schemas:\n    A: {$ref: '#/components/schemas/B'}\n    B: {$ref: '#/components/schemas/A'}\n",
            "direct.yaml: /components/schemas/B/$ref: expected a $ref cycle with an object or array in between, found a cycle with none: #/components/schemas/A → #/components/schemas/B → #/components/schemas/A"
        ),
        (
            "paramcycle.yaml",
            "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    get:\n      parameters: [{$ref: '#/components/parameters/P'}]\n      responses: {'200': {description: x}}\ncomponents:\n  parameters:\n    P: {$ref: '#/components/parameters/Q'}\n    Q: {$ref: '#/components/parameters/P'}\n",
            "paramcycle.yaml: /components/parameters/P: expected a valid OpenAPI document, found Expected to find `name` key in Document.components.parameters.P but it is missing."
        ),
        (
            "broken.yaml", "openapi: 3.0.3\npaths: [1, 2\n",
            "broken.yaml:3:1: expected a YAML or JSON document, found no ',' or ']' where one was expected, while parsing a flow sequence"
        ),
        (
            "token.yaml", "openapi: 3.0.3\ninfo:\n  title: @oops\n",
            "token.yaml:3:10: expected a YAML or JSON document, found a character that cannot start any token (\"@\"), while scanning for the next token"
        ),
        (
            "duplicate.yaml",
            "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: a\n      operationId: b\n",
            "duplicate.yaml:6:7: expected a mapping with unique keys, found \"operationId\" more than once"
        ),
        (
            "badtype.yaml",
            "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: x\n          content:\n            application/json:\n              schema: {type: int}\n",
            "badtype.yaml: /paths/~1a/get/responses/200/content/application~1json/schema/type: expected a JSON type name or an array of them, found string \"int\""
        ),
        (
            "other.json", #"{"name": "not a spec"}"#,
            "other.json: /openapi: expected an OpenAPI document with \"openapi\": \"3.0.x\" or \"3.1.x\", found no \"openapi\" member"
        ),
        (
            "swagger.json", #"{"swagger": "2.0", "info": {}, "paths": {}}"#,
            "swagger.json: /swagger: expected an OpenAPI 3.0 or 3.1 document, found Swagger 2.0 (convert it to OpenAPI 3 first)"
        ),
    ])
    func badSpecsAreBadInputNamingFileAndPlace(name: String, text: String, message: String) async throws {
        let directory = try TemporaryFolder.make("openapi-bad")
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        for command in ["import", "check"] {
            let result = try await CommandLineRunner.run(["openapi", command, name], in: directory)
            #expect(result.status == 2, "\(result)")
            #expect(result.standardError == "Error: \(message)\n", "\(result)")
        }
    }

    @Test func aFileOfOtherBytesIsBadInputForEveryCommand() async throws {
        let directory = try TemporaryFolder.make("openapi-binary")
        try Data([0xFF, 0xFE, 0x00, 0x01, 0x6F, 0x70]).write(to: directory.appendingPathComponent("binary.yaml"))
        for arguments in [
            ["import", "binary.yaml"], ["check", "binary.yaml"], ["diff", "binary.yaml", "binary.yaml"],
        ] {
            let result = try await CommandLineRunner.run(["openapi"] + arguments, in: directory)
            #expect(result.status == 2, "\(result)")
            #expect(
                result.standardError == "Error: binary.yaml: expected UTF-8 text (YAML or JSON), found other bytes\n",
                "\(result)")
        }
    }

    @Test func diffJudgesChangesFromTheClientsSide() async throws {
        let directory = try TemporaryFolder.make("openapi-diff")
        var text = try String(contentsOfFile: Self.recipesSpec, encoding: .utf8)
        text = text.replacingOccurrences(
            of: "- name: page\n          in: query\n          required: false",
            with: "- name: page\n          in: query\n          required: true")
        text = text.replacingOccurrences(
            of: "social_rank:\n          type: number", with: "social_rank:\n          type: string")
        text = text.replacingOccurrences(of: "enum: [ok]", with: "enum: [ok, degraded]")
        try Data(text.utf8).write(to: directory.appendingPathComponent("new.yaml"))
        let result = try await CommandLineRunner.run(
            ["openapi", "diff", Self.recipesSpec, "new.yaml"], in: directory)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.standardOutput == """
                breaking GET /api/get response 200: /recipe/social_rank type-changed: number → string
                breaking GET /api/search query parameter page: became-required
                breaking GET /api/search response 200: /recipes/*/social_rank type-changed: number → string
                warning  GET /api/health response 200: /status enum-changed: added degraded
                3 breaking, 1 warnings, 0 info

                """, "\(result)")
        let json = try await CommandLineRunner.run(
            ["openapi", "diff", Self.recipesSpec, "new.yaml", "--format", "json"], in: directory)
        #expect(json.status == 1)
        #expect(json.standardOutput.contains(#""operation": "GET /api/search","#), "\(json)")
        let same = try await CommandLineRunner.run(["openapi", "diff", Self.recipesSpec, Self.recipesSpec])
        #expect(same.status == 0, "\(same)")
        #expect(same.standardOutput == "0 breaking, 0 warnings, 0 info\n")
    }

    @Test(.hangGuard) func importWritesAProbeConfigThatRunsAgainstTheServer() async throws {
        let directory = try TemporaryFolder.make("openapi-config")
        let imported = try await CommandLineRunner.run(
            ["openapi", "import", Self.recipesSpec, "--config", "apiprobe.yml"], in: directory)
        #expect(imported.status == 0, "\(imported)")
        let config = try String(contentsOf: directory.appendingPathComponent("apiprobe.yml"), encoding: .utf8)
        #expect(
            config.hasSuffix(
                """
                api: "recipes"
                baseURL: ${RECIPES_BASE_URL:-https://recipes.example.com}
                endpoints:
                  - name: "searchRecipes"
                    path: "/api/search"
                    query: {"q": "chicken"}
                    expect: {status: 200, schema: true}
                  - name: "getRecipe"
                    path: "/api/get"
                    query: {"rId": "35382"}
                    expect: {status: 200, schema: true}
                  - name: "health"
                    path: "/api/health"
                    expect: {status: 200, schema: true}

                """), "\(config)")
        try await RecipesServer.with { server in
            let result = try await CommandLineRunner.run(
                ["run", "--config", "apiprobe.yml"],
                environment: ["RECIPES_BASE_URL": "http://127.0.0.1:\(server.port)"], in: directory)
            #expect(result.status == 0, "\(result)")
        }
        try Data("endpoints: []\n".utf8).write(to: directory.appendingPathComponent("mine.yml"))
        let refused = try await CommandLineRunner.run(
            ["openapi", "import", Self.recipesSpec, "--config", "mine.yml"], in: directory)
        #expect(refused.status == 2, "\(refused)")
        #expect(
            refused.standardError == """
                Error: mine.yml: expected a config that openapi import wrote (its first line starts with \
                "# Generated by apiprobe openapi import"), found a file of your own; name another --config file

                """, "\(refused)")
    }
}
