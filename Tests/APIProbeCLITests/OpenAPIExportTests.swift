import APIProbeTestSupport
import ContractTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `apiprobe openapi export`, the petstore through all four commands, spec-derived snapshots in
/// `snapshot check`, and `expectRequestsConform` on an imported description.
@Suite(.tags(.commandLine, .outsideTools), .temporaryFolder)
struct OpenAPIExportTests {
    static let repository = OpenAPICommandTests.repository
    static let petstore = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/petstore.yaml").path

    /// `openapi-spec-validator` (PyPI), which `.ci/run` installs into a virtual environment and names in
    /// `OPENAPI_SPEC_VALIDATOR`; `.build/venv-openapi/bin/openapi-spec-validator` otherwise.
    static var validator: URL? {
        let environment = ProcessInfo.processInfo.environment
        let candidates: [String?] = [
            environment["OPENAPI_SPEC_VALIDATOR"],
            repository.appendingPathComponent(".build/venv-openapi/bin/openapi-spec-validator").path,
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
            .map(URL.init(fileURLWithPath:))
    }

    /// Checks `file` with openapi-spec-validator; without it, a failure under CI and a known issue elsewhere.
    static func expectValidOpenAPI(_ file: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        guard let validator else {
            let message =
                "openapi-spec-validator not found: set OPENAPI_SPEC_VALIDATOR, or run .ci/run (it installs it into "
                + ".build/venv-openapi with pip)"
            TestEnvironment.recordMissing(message, sourceLocation: sourceLocation)
            return
        }
        let result = try await CommandLineRunner.runProcess(validator, [file.path])
        #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        #expect(result.standardOutput.hasSuffix(": OK\n"), "\(result)", sourceLocation: sourceLocation)
    }

    /// Writes an exchange as a fixture file.
    static func writeFixture(
        _ name: String, in folder: URL, method: String = "GET", url: String, requestHeaders: [String: String] = [:],
        requestBody: String? = nil, status: Int = 200, body: String?
    ) throws {
        var request: [String: Any] = ["method": method, "url": url, "headers": requestHeaders]
        if let requestBody {
            request["body"] = try JSONSerialization.jsonObject(with: Data(requestBody.utf8), options: .fragmentsAllowed)
            request["bodyEncoding"] = "json"
        }
        var response: [String: Any] = ["status": status, "headers": ["Content-Type": "application/json"]]
        if let body {
            response["body"] = try JSONSerialization.jsonObject(with: Data(body.utf8), options: .fragmentsAllowed)
            response["bodyEncoding"] = "json"
        }
        let file = folder.appendingPathComponent(name + ".json")
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: ["request": request, "response": response], options: .sortedKeys)
            .write(to: file)
    }

    @Test func theExportOfTheRecipesFixturesValidatesRoundTripsAndIsDeterministic() async throws {
        let directory = try TemporaryFolder.make("openapi-export")
        let exported = directory.appendingPathComponent("recipes.json")
        let result = try await CommandLineRunner.run(
            [
                "openapi", "export", "--stubs", "Stubs/recipes", "--snapshots", "Snapshots/recipes", "--title",
                "Recipes API", "--output", exported.path,
            ], in: Self.repository)
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.hasSuffix(": 2 operations from 6 fixtures\n"), "\(result)")
        try await Self.expectValidOpenAPI(exported)

        // The same input gives the same bytes (on standard output too).
        let again = try await CommandLineRunner.run(
            [
                "openapi", "export", "--stubs", "Stubs/recipes", "--snapshots", "Snapshots/recipes", "--title",
                "Recipes API",
            ],
            in: Self.repository)
        #expect(again.status == 0, "\(again)")
        #expect(Data(again.standardOutput.utf8) == (try Data(contentsOf: exported)))

        // Importing it gives back the committed snapshots (an import counts no samples).
        let imported = try await CommandLineRunner.run(
            ["openapi", "import", exported.path, "--api", "recipes", "--snapshots", "Snapshots"], in: directory)
        #expect(imported.status == 0, "\(imported)")
        for name in ["search", "get"] {
            let back = try String(
                contentsOf: directory.appendingPathComponent("Snapshots/recipes/\(name).schema.json"), encoding: .utf8)
            let committed = try String(
                contentsOf: Self.repository.appendingPathComponent("Snapshots/recipes/\(name).schema.json"),
                encoding: .utf8)
            #expect(
                back.replacingOccurrences(of: "\"samples\": 0", with: "")
                    == committed.replacing(/"samples": \d+/, with: ""), "\(name)")
        }
        // And the fixtures it came from are truthful to it.
        let check = try await CommandLineRunner.run(
            ["openapi", "check", exported.path, "--stubs", "Stubs/recipes"], in: Self.repository)
        #expect(check.status == 0, "\(check)")
        #expect(check.standardOutput == "6 fixtures, 2 operations: 0 violations, 0 unmatched\n", "\(check)")
    }

    @Test func idsInPathsBecomeParametersAndSecretsAreMasked() async throws {
        let directory = try TemporaryFolder.make("openapi-export-ids")
        let stubs = directory.appendingPathComponent("Stubs/shop")
        let base = "https://shop.example.com/v2"
        let pet = #"{"id": 1, "name": "Rex", "owner": {"id": "4b3c2a10-98f1-4a5e-9d0a-0123456789ab"}}"#
        try Self.writeFixture("pet", in: stubs, url: "\(base)/pets/1", body: pet)
        try Self.writeFixture("pet.other", in: stubs, url: "\(base)/pets/42", body: pet)
        try Self.writeFixture("pet.missing", in: stubs, url: "\(base)/pets/7", status: 404, body: #"{"error": "no"}"#)
        try Self.writeFixture("mine", in: stubs, url: "\(base)/pets/mine?limit=5", body: "[]")
        try Self.writeFixture(
            "owner", in: stubs, url: "\(base)/owners/4b3c2a10-98f1-4a5e-9d0a-0123456789ab/pets/1", body: "[]")
        try Self.writeFixture(
            "owner.second", in: stubs, url: "\(base)/owners/0e6f1c9e-55aa-4c31-b7e3-aabbccddeeff/pets/1", body: "[]")
        try Self.writeFixture(
            "adopt", in: stubs, method: "POST", url: "\(base)/pets/1/adoptions",
            requestHeaders: ["Authorization": "Bearer s3cr3t-token-0042"], requestBody: #"{"by": "Ann"}"#,
            status: 201, body: #"{"ok": true}"#)
        try Self.writeFixture(
            "session", in: stubs, url: "\(base)/sessions/s3cr3t-token-0042", body: #"{"user": "ann"}"#)
        let result = try await CommandLineRunner.run(
            ["openapi", "export", "--stubs", "Stubs", "--output", "shop.json"], in: directory)
        #expect(result.status == 0, "\(result)")
        let text = try String(contentsOf: directory.appendingPathComponent("shop.json"), encoding: .utf8)
        #expect(!text.contains("s3cr3t"), "a credential sent in a header is masked where it reappears")
        let document = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        #expect(
            paths.keys.sorted() == [
                "/v2/owners/{ownerId}/pets/1", "/v2/pets/1/adoptions", "/v2/pets/mine", "/v2/pets/{petId}",
                "/v2/sessions/REDACTED",
            ])
        #expect((document["servers"] as? [[String: String]]) == [["url": "https://shop.example.com"]])
        let show = try #require((paths["/v2/pets/{petId}"] as? [String: Any])?["get"] as? [String: Any])
        #expect(show["operationId"] as? String == "pet")
        let parameter = try #require((show["parameters"] as? [[String: Any]])?.first)
        #expect(parameter["name"] as? String == "petId")
        #expect(parameter["in"] as? String == "path")
        #expect(((show["responses"] as? [String: Any])?.keys.sorted()) == ["200", "404"])
        let owner = try #require((paths["/v2/owners/{ownerId}/pets/1"] as? [String: Any])?["get"] as? [String: Any])
        #expect(
            ((owner["parameters"] as? [[String: Any]])?.first?["schema"] as? [String: String])
                == ["type": "string", "format": "uuid"])
        let adopt = try #require((paths["/v2/pets/1/adoptions"] as? [String: Any])?["post"] as? [String: Any])
        #expect(adopt["requestBody"] != nil)
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        #expect(schemas.keys.sorted() == ["adopt", "adopt_request", "owner", "pet", "pet_404", "session"])
        try await Self.expectValidOpenAPI(directory.appendingPathComponent("shop.json"))
    }

    @Test func exportOfAMissingFolderIsBadInput() async throws {
        let directory = try TemporaryFolder.make("openapi-export-bad")
        let result = try await CommandLineRunner.run(["openapi", "export", "--stubs", "Nope"], in: directory)
        #expect(result.status == 2, "\(result)")
        #expect(result.standardError == "Error: Nope: expected a folder of fixtures, found no such folder\n")
    }

    @Test func thePetstoreGoesThroughAllFourCommands() async throws {
        let directory = try TemporaryFolder.make("openapi-petstore")
        let imported = try await CommandLineRunner.run(["openapi", "import", Self.petstore], in: directory)
        #expect(imported.status == 0, "\(imported)")
        #expect(
            imported.standardOutput.hasSuffix("3 operations, 2 snapshots, 2 approximations: see operations.json\n"),
            "\(imported)")
        // The approximations are said on standard error, the files written on standard output.
        #expect(
            imported.standardError.components(separatedBy: "note: \(Self.petstore): ").count - 1 == 2, "\(imported)")
        #expect(!imported.standardOutput.contains("note: "), "\(imported)")
        let snapshots = try FileManager.default.contentsOfDirectory(
            atPath: directory.appendingPathComponent("Snapshots/petstore").path
        ).sorted()
        #expect(snapshots == ["listPets.schema.json", "operations.json", "showPetById.schema.json"])

        let stubs = directory.appendingPathComponent("Stubs/petstore")
        let base = "http://petstore.swagger.io/v1"
        try Self.writeFixture("pets", in: stubs, url: "\(base)/pets?limit=2", body: #"[{"id": 1, "name": "Rex"}]"#)
        try Self.writeFixture("pet", in: stubs, url: "\(base)/pets/1", body: #"{"id": 1, "name": "Rex", "tag": "dog"}"#)
        try Self.writeFixture("pet.other", in: stubs, url: "\(base)/pets/2", body: #"{"id": 2, "name": "Tom"}"#)
        try Self.writeFixture(
            "create", in: stubs, method: "POST", url: "\(base)/pets", requestBody: #"{"id": 3, "name": "Kit"}"#,
            status: 201, body: nil)
        try Self.writeFixture(
            "broken", in: stubs, url: "\(base)/pets/9", status: 500, body: #"{"code": "E500", "message": "down"}"#)
        let check = try await CommandLineRunner.run(["openapi", "check", Self.petstore], in: directory)
        #expect(check.status == 1, "\(check)")
        #expect(
            check.standardOutput == """
                violation Stubs/petstore/broken.json: GET /pets/{petId}: /code: type: expected integer, found string "E500"
                5 fixtures, 3 operations: 1 violations, 0 unmatched

                """, "\(check)")

        var changed = try String(contentsOfFile: Self.petstore, encoding: .utf8)
        changed = changed.replacingOccurrences(of: "        tag:\n          type: string\n", with: "")
        changed = changed.replacingOccurrences(
            of: "      required:\n        - id\n        - name\n", with: "      required:\n        - id\n")
        try Data(changed.utf8).write(to: directory.appendingPathComponent("petstore-2.yaml"))
        let diff = try await CommandLineRunner.run(
            ["openapi", "diff", Self.petstore, "petstore-2.yaml"], in: directory)
        #expect(diff.status == 1, "\(diff)")
        // Pet is shared by both GET operations: each change to it is one line, with the operations it reaches.
        #expect(
            diff.standardOutput.contains(
                "breaking components/schemas/Pet: /name became-optional — 2 operations, e.g. GET /pets response 200\n"),
            "\(diff)")
        // `tag` is optional: its removal is a warning in the responses (oasdiff's response-optional-property-removed)
        // as in the request body, so it is one change of Pet, reaching three operations.
        #expect(
            diff.standardOutput.contains(
                "warning  components/schemas/Pet: /tag removed: was string — 3 operations, e.g. GET /pets response 200\n"
            ),
            "\(diff)")

        let exported = try await CommandLineRunner.run(
            ["openapi", "export", "--stubs", "Stubs/petstore", "--title", "Petstore", "--output", "out.json"],
            in: directory)
        #expect(exported.status == 0, "\(exported)")
        #expect(exported.standardOutput == "wrote   out.json: 3 operations from 5 fixtures\n", "\(exported)")
        let text = try String(contentsOf: directory.appendingPathComponent("out.json"), encoding: .utf8)
        #expect(text.contains("\"/v1/pets/{petId}\""), "\(text)")
        try await Self.expectValidOpenAPI(directory.appendingPathComponent("out.json"))
    }

    @Test func snapshotsImportedFromASpecAreNotOrphans() async throws {
        let directory = try TemporaryFolder.make("openapi-orphans")
        let imported = try await CommandLineRunner.run(
            ["openapi", "import", OpenAPICommandTests.recipesSpec, "--snapshots", "Snapshots"], in: directory)
        #expect(imported.status == 0, "\(imported)")
        // A snapshot of no fixture and of no spec is still an orphan.
        try Data("{}\n".utf8).write(to: directory.appendingPathComponent("Snapshots/recipes/gone.schema.json"))
        let stubs = directory.appendingPathComponent("Stubs/recipes")
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
        let result = try await CommandLineRunner.run(
            ["snapshot", "check", "--stubs", "Stubs", "--snapshots", "Snapshots", "--format", "json"], in: directory)
        let report = try #require(
            JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result)")
        #expect(report["orphaned"] as? [String] == ["Snapshots/recipes/gone.schema.json"], "\(result)")
    }

    @Test func aClientThatSendsAnUndeclaredParameterFailsAgainstTheImportedSpec() async throws {
        let directory = try TemporaryFolder.make("openapi-requests")
        let imported = try await CommandLineRunner.run(
            ["openapi", "import", OpenAPICommandTests.recipesSpec, "--snapshots", "Snapshots"], in: directory)
        #expect(imported.status == 0, "\(imported)")

        let stubs = StubSet()
        let store = FixtureStore(directory: Self.repository.appendingPathComponent("Stubs"))
        stubs.stub(
            .get("https://recipes.example.com/api/search"),
            response: .fixture(try store.exchange(named: "recipes/search")))
        let session = URLSession(configuration: stubs.sessionConfiguration())
        defer { session.finishTasksAndInvalidate() }
        for url in [
            "https://recipes.example.com/api/search?q=chicken&page=2",
            "https://recipes.example.com/api/search?q=chicken&sort=rank",
        ] {
            _ = try await session.data(from: try #require(URL(string: url)))
        }
        let operations = APIOperations.operations(of: "recipes", in: directory.appendingPathComponent("Snapshots"))
        withKnownIssue {
            expectRequestsConform(stubs.requests, to: operations)
        } matching: { issue in
            (issue.error as? ContractFailure)?.message
                == "GET https://recipes.example.com/api/search?q=chicken&sort=rank: GET /api/search: /query/sort: "
                + "query parameter \"sort\" is not declared"
        }
        #expect(verifyRequestsConform(Array(stubs.requests.prefix(1)), to: operations).message == nil)
    }
}
