import APIProbeTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `apiprobe demo` and `apiprobe demo --serve`, run as the built binary.
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder)
struct DemoCommandTests {
    @Test func theDemoCatchesTheDriftExitsZeroAndLeavesItsFilesWhereItSays() async throws {
        let temporary = try TemporaryFolder.make("demo-command")
        let result = try await RecordCommandTests.run(["demo"], environment: ["TMPDIR": temporary.path], in: temporary)

        #expect(result.status == 0, "\(result)")
        let output = result.standardOutput
        #expect(output.contains("== 2. Record fixtures and snapshots"), "\(result)")
        #expect(output.contains("ok      Snapshots/recipes/search.schema.json (2 samples)"), "\(result)")
        #expect(output.contains("breaking /recipes/*/social_rank removed: was number"), "\(result)")
        #expect(
            output.contains(
                "Drift caught by the probe: yes; by the snapshot check: yes; by the OpenAPI check: yes; "
                    + "by the app's contract: yes"),
            "\(result)")
        // The backend's side: the app's contract passes the API, then names what the drift breaks.
        #expect(
            output.contains("RecipesApp demo (Contracts/RecipesApp/demo.json): can deploy: 3 of 3 interactions pass"))
        #expect(
            output.contains("RecipesApp demo (Contracts/RecipesApp/demo.json): would break: 1 of 3 interactions pass"))
        #expect(output.contains("      /recipe/social_rank: missing: the consumer reads it\n"), "\(result)")
        #expect(
            output.contains(
                "violation Stubs/recipes/get.json: GET /api/get: /recipe/social_rank: required: required property "
                    + "\"social_rank\" is missing\n"), "\(result)")
        #expect(output.contains("the drift was caught, as designed."), "\(result)")
        #expect(!output.contains("\u{1B}["), "NO_COLOR is set: no escape codes")

        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("The demo's files are in ") })
        let folder = URL(fileURLWithPath: String(line.dropFirst("The demo's files are in ".count)))
        #expect(folder.standardizedFileURL.path.hasPrefix(temporary.standardizedFileURL.path))
        for file in [
            "apiprobe.yml", "openapi/recipes.yaml", "Stubs/recipes/search.json", "Stubs/recipes/search.empty.json",
            "Stubs/recipes/get.json",
            "Snapshots/recipes/search.schema.json", "Snapshots/recipes/get.schema.json",
            "Contracts/RecipesApp/demo.json", "pacts/RecipesApp-recipes.json",
        ] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path), "\(file)")
        }
        #expect(
            output.contains("apiprobe snapshot check --stubs \(folder.path)/Stubs --snapshots \(folder.path)/Snapshots")
        )

        // The command it suggests works on the files it left: the drifted fixtures break the snapshots.
        let check = try await RecordCommandTests.run(
            ["snapshot", "check", "--stubs", folder.path + "/Stubs", "--snapshots", folder.path + "/Snapshots"],
            in: temporary)
        #expect(check.status == 1, "\(check)")
        #expect(check.standardOutput.contains("breaking"), "\(check)")

        // The usage manifests the demo wrote are the sample app's, as its contract tests recorded them.
        for endpoint in ["search", "get"] {
            let name = "Snapshots/recipes/\(endpoint).usage.json"
            #expect(
                (try Data(contentsOf: folder.appendingPathComponent(name)))
                    == (try Data(contentsOf: OpenAPICommandTests.repository.appendingPathComponent(name))), "\(name)")
        }

        // The description the demo wrote is the repository's, and the drifted fixtures violate it.
        let written = try Data(contentsOf: folder.appendingPathComponent("openapi/recipes.yaml"))
        #expect(
            written
                == (try Data(contentsOf: OpenAPICommandTests.repository.appendingPathComponent("openapi/recipes.yaml")))
        )
        let spec = try await RecordCommandTests.run(
            ["openapi", "check", folder.path + "/openapi/recipes.yaml", "--stubs", folder.path + "/Stubs"],
            in: temporary)
        #expect(spec.status == 1, "\(spec)")
    }

    @Test func noKeepRemovesTheDemoFolder() async throws {
        let temporary = try TemporaryFolder.make("demo-command")
        let result = try await RecordCommandTests.run(
            ["demo", "--no-keep"], environment: ["TMPDIR": temporary.path], in: temporary)
        #expect(result.status == 0, "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
        #expect(result.standardOutput.contains("is removed (--no-keep)"), "\(result)")
        #expect(result.standardOutput.contains("the drift was caught, as designed."), "\(result)")
    }

    @Test func serveAnswersOnItsPrintedPortAndExitsZeroOnSIGTERM() async throws {
        let command = try RunningCommand(["demo", "--serve", "--drifted"])
        // The first line names the URL: "Recipes API on http://127.0.0.1:<port> (drifted variant)".
        let text = try await command.waitForOutput(containing: "Stop with Ctrl-C.")
        let match = try #require(text.firstMatch(of: /http:\/\/127\.0\.0\.1:(\d+)/), "\(text)")
        let port = String(match.1)
        #expect(text.contains("RECIPES_PORT=\(port) swift run apiprobe run"), "\(text)")

        let url = try #require(URL(string: "http://127.0.0.1:\(port)/api/get?rId=35382"))
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains("\"cook_time_minutes\""), "the drifted variant")

        #expect(try await command.stop(SIGTERM) == 0)
        #expect(command.standardOutput.contains("Stopped (SIGTERM)."), "\(command.standardOutput)")
    }
}
