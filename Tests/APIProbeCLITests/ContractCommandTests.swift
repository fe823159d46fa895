import APIProbeEchoServer
import APIProbeTestSupport
import Foundation
import RecipesServer
import Testing

/// `apiprobe contract export` and `verify` as the docs show them: the sample app's contract against the recipes
/// server and its drifted variant, every kind of bad input, a provider that does not answer, a failing state
/// change, and credentials that never reach a report.
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder, .serialized)
struct ContractCommandTests {
    /// A folder holding a copy of the repository's `Stubs/` and `Snapshots/` (the sample app's usage manifests).
    static func project() throws -> URL {
        let folder = try TemporaryFolder.make("contract")
        for name in ["Stubs", "Snapshots"] {
            try FileManager.default.copyItem(
                at: OpenAPICommandTests.repository.appendingPathComponent(name),
                to: folder.appendingPathComponent(name))
        }
        return folder
    }

    static func export(in folder: URL, _ extra: [String] = []) async throws -> CommandResult {
        try await CommandLineRunner.run(
            ["contract", "export", "--consumer", "RecipesApp", "--consumer-version", "1.0.0"] + extra, in: folder)
    }

    @Test func theSampleAppsContractPassesTheServerAndNamesWhatTheDriftedOneBreaks() async throws {
        let folder = try Self.project()
        let export = try await Self.export(in: folder, ["--pact", "pacts"])
        #expect(export.status == 0, "\(export)")
        #expect(
            export.standardOutput
                == "Exported 6 interactions of RecipesApp 1.0.0 with recipes: Contracts/RecipesApp/1.0.0.json, pacts/RecipesApp-recipes.json; 0 left out; 0 Pact approximations\n"
        )
        #expect(export.standardError.isEmpty, "\(export)")
        let contract = try String(
            contentsOf: folder.appendingPathComponent("Contracts/RecipesApp/1.0.0.json"), encoding: .utf8)
        #expect(contract.contains("\"social_rank\""))
        #expect(!contract.contains("\"cook_time_minutes\""))  // not read by the app
        let pact =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: folder.appendingPathComponent("pacts/RecipesApp-recipes.json")))
            as? [String: Any]
        #expect(
            (pact?["metadata"] as? [String: Any]).flatMap { $0["pactSpecification"] as? [String: String] } == [
                "version": "4.0"
            ])

        try await RecipesServer.with { server in
            let passed = try await CommandLineRunner.run(
                ["contract", "verify", "--provider", server.baseURL.absoluteString, "Contracts"], in: folder)
            #expect(passed.status == 0, "\(passed)")
            #expect(
                passed.standardOutput.contains(
                    "RecipesApp 1.0.0 (Contracts/RecipesApp/1.0.0.json): can deploy: 6 of 6 interactions pass"))
        }
        try await RecipesServer.with(.init(isDrifted: true)) { server in
            let failed = try await CommandLineRunner.run(
                ["contract", "verify", "--provider", server.baseURL.absoluteString, "Contracts"], in: folder)
            #expect(failed.status == 1, "\(failed)")
            let lines = failed.standardOutput.split(separator: "\n").map(String.init)
            #expect(
                lines.contains(
                    "RecipesApp 1.0.0 (Contracts/RecipesApp/1.0.0.json): would break: 3 of 6 interactions pass"))
            #expect(lines.contains("  ✗ recipes/get"))
            #expect(lines.contains("      /recipe/social_rank: missing: the consumer reads it"))
            #expect(
                lines.contains(
                    "      /recipes/*/social_rank: missing: the consumer reads it (30 items, first /recipes/0/social_rank)"
                ))
            #expect(lines.contains("      /recipe/recipe_id: expected string, found integer 35382"))
            // `cook_time_minutes`, added by the drift, is read by no one: not a break.
            #expect(!failed.standardOutput.contains("cook_time"))

            let junit = try await CommandLineRunner.run(
                ["contract", "verify", "--provider", server.baseURL.absoluteString, "--format", "junit", "Contracts"],
                in: folder)
            #expect(junit.status == 1)
            #expect(junit.standardOutput.contains(#"<testsuite name="RecipesApp 1.0.0" tests="6" failures="3">"#))
            #expect(
                junit.standardOutput.contains(
                    #"<failure message="/recipe/social_rank: missing: the consumer reads it">"#))
            let json = try await CommandLineRunner.run(
                ["contract", "verify", "--provider", server.baseURL.absoluteString, "--format", "json", "Contracts"],
                in: folder)
            let report = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
            #expect(report?["passed"] as? Bool == false)
        }
    }

    @Test func everyBadInputIsANamedErrorWithStatusTwo() async throws {
        let folder = try Self.project()
        func write(_ text: String, _ name: String) throws {
            try Data(text.utf8).write(to: folder.appendingPathComponent(name))
        }
        let provider = "http://127.0.0.1:9"
        func verify(_ name: String) async throws -> CommandResult {
            try await CommandLineRunner.run(["contract", "verify", "--provider", provider, name], in: folder)
        }
        try write(#"{"openapi": "3.1.0"}"#, "notacontract.json")
        var result = try await verify("notacontract.json")
        #expect(result.status == 2)
        #expect(
            result.standardError.contains("notacontract.json: /apiprobeContract: expected an apiprobe contract"),
            "\(result)")

        try write(
            #"{"consumer": {"name": "A"}, "provider": {"name": "B"}, "interactions": [], "metadata": {"pactSpecification": {"version": "4.0"}}}"#,
            "pact.json")
        result = try await verify("pact.json")
        #expect(result.status == 2)
        #expect(result.standardError.contains("found a Pact file"), "\(result)")

        try write("{\"apiprobeContract\": 1,\n  \"consumer\": }", "broken.json")
        result = try await verify("broken.json")
        #expect(result.status == 2)
        #expect(result.standardError.contains("broken.json:2:"), "\(result)")

        let reads =
            #"{"apiprobeContract": 1, "consumer": {"name": "A", "version": "1"}, "provider": {"name": "B"}, "interactions": [{"name": "x", "request": {"method": "GET", "url": "https://b.example/x"}, "response": {"status": 200, "reads": {"type": "objekt"}}}]}"#
        try write(reads, "reads.json")
        result = try await verify("reads.json")
        #expect(result.status == 2)
        #expect(result.standardError.contains("reads.json: /interactions/0/response/reads/type"), "\(result)")

        let request =
            #"{"apiprobeContract": 1, "consumer": {"name": "A", "version": "1"}, "provider": {"name": "B"}, "interactions": [{"name": "x", "request": {"method": "GET"}, "response": {"status": 200}}]}"#
        try write(request, "request.json")
        result = try await verify("request.json")
        #expect(result.status == 2)
        #expect(result.standardError.contains("request.json: /interactions/0/request/url"), "\(result)")

        result = try await verify("missing.json")
        #expect(result.status == 2)
        #expect(result.standardError.contains("missing.json"), "\(result)")

        // Export: a name that would leave the folder, no manifest at all, and --strict with an endpoint left out.
        result = try await CommandLineRunner.run(
            ["contract", "export", "--consumer", "../up", "--consumer-version", "1"], in: folder)
        #expect(result.status == 2)
        #expect(result.standardError.contains("--consumer ../up: expected a name without"), "\(result)")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("Snapshots/recipes/get.usage.json"))
        result = try await Self.export(in: folder, ["--strict"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("note: recipes/get: no usage manifest"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("Contracts").path))
        result = try await Self.export(in: folder)
        #expect(result.status == 0)
        #expect(result.standardOutput.hasSuffix("; 1 left out\n"), "\(result)")
        // A manifest whose endpoint's fixtures are gone: said, counted, and an error with --strict.
        try FileManager.default.copyItem(
            at: folder.appendingPathComponent("Snapshots/recipes/search.usage.json"),
            to: folder.appendingPathComponent("Snapshots/recipes/retired.usage.json"))
        result = try await Self.export(in: folder)
        #expect(result.status == 0)
        #expect(
            result.standardError.contains(
                "note: recipes/retired.usage.json: its endpoint has no fixture (gone from the fixtures?): left out"),
            "\(result)")
        #expect(result.standardOutput.hasSuffix("; 2 left out\n"), "\(result)")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("Snapshots/recipes/retired.usage.json"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("Snapshots/recipes/search.usage.json"))
        result = try await Self.export(in: folder)
        #expect(result.status == 2)
        #expect(result.standardError.contains("expected a usage manifest for at least one endpoint"), "\(result)")
    }

    /// A provider that does not answer and a state change that fails are failed interactions (status 1), each
    /// named; a credential given with --header, echoed back by the provider, is masked in every format.
    @Test func unansweredRequestsFailedStateChangesAndEchoedCredentials() async throws {
        let folder = try TemporaryFolder.make("contract-echo")
        let secret = "s3cr3t-planted-token"
        let tenant = "tenant-planted-7731"  // not credential-named: masked because it was given as a header
        try await EchoServer.with(serverToken: "server-token-1", serverCookie: "cookie-1") { echo in
            let contract = """
                {"apiprobeContract": 1, "consumer": {"name": "App", "version": "2"}, "provider": {"name": "echo"},
                 "interactions": [
                  {"name": "echo/json", "providerState": "a signed-in user",
                   "request": {"method": "GET", "url": "https://echo.example/json", "headers": {"Authorization": "Bearer <redacted>"}},
                   "response": {"status": 200, "reads": {"type": "object", "required": ["headers"],
                     "properties": {"headers": {"type": "object", "required": ["Authorization", "X-Tenant"],
                       "properties": {"Authorization": {"type": "integer"}, "X-Tenant": {"type": "integer"}}}}}}}
                 ]}
                """
            try Data(contract.utf8).write(to: folder.appendingPathComponent("app.json"))
            for format in ["text", "json", "junit"] {
                let result = try await CommandLineRunner.run(
                    [
                        "contract", "verify", "--provider", echo.baseURL.absoluteString, "--header",
                        "Authorization: Bearer \(secret)", "--header", "X-Tenant: \(tenant)", "--format", format,
                        "app.json",
                    ], in: folder)
                #expect(result.status == 1, "\(result)")
                #expect(result.standardOutput.contains("/headers/Authorization"), "\(result)")
                #expect(result.standardOutput.contains("/headers/X-Tenant"), "\(result)")
                for planted in [secret, tenant] {
                    #expect(
                        !result.standardOutput.contains(planted) && !result.standardError.contains(planted), "\(result)"
                    )
                }
            }
            // The state change, set up before the request: Pact's body, POSTed to the URL given.
            let states = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
            defer { states.stop() }
            let withState = try await CommandLineRunner.run(
                [
                    "contract", "verify", "--provider", echo.baseURL.absoluteString, "--provider-states-url",
                    states.baseURL.appendingPathComponent("_pact/state").absoluteString, "app.json",
                ], in: folder)
            #expect(withState.status == 1, "\(withState)")  // the state was set up; the answer still breaks
            #expect(!withState.standardOutput.contains("state change"), "\(withState)")
            #expect(
                states.requests.map { "\($0.method) \($0.path) \($0.body)" }
                    == [#"POST /_pact/state {"action":"setup","params":{},"state":"a signed-in user"}"#])

            // A state change that fails: a path of the recipes server answers 404.
            try await RecipesServer.with { recipes in
                let failed = try await CommandLineRunner.run(
                    [
                        "contract", "verify", "--provider", echo.baseURL.absoluteString, "--provider-states-url",
                        recipes.baseURL.appendingPathComponent("states").absoluteString, "app.json",
                    ], in: folder)
                #expect(failed.status == 1)
                #expect(failed.standardOutput.contains("state change \"a signed-in user\" failed:"), "\(failed)")
                #expect(failed.standardOutput.contains("answered 404"), "\(failed)")
            }
        }
        let unanswered = try await CommandLineRunner.run(
            ["contract", "verify", "--provider", "http://127.0.0.1:9", "--timeout", "2s", "app.json"], in: folder)
        #expect(unanswered.status == 1, "\(unanswered)")
        #expect(unanswered.standardOutput.contains("no answer from http://127.0.0.1:9/json"), "\(unanswered)")
    }
}
