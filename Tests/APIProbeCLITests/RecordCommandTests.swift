import APIProbeTestSupport
import Foundation
import HTTPFixtures
import RecipesServer
import Testing

/// `apiprobe record` end to end: the built binary against the recipes server on loopback.
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder)
struct RecordCommandTests {
    /// A config with `${RECIPES_PORT}` in its base URL, so it holds no port and no secret.
    static let config = """
        api: recipes
        baseURL: http://127.0.0.1:${RECIPES_PORT}
        stubs: Stubs
        snapshots: Snapshots
        endpoints:
          - name: search
            path: /api/search
            query:
              q: chicken
          - name: search.empty
            path: /api/search
            query:
              q: zzzzqx
          - name: get
            path: /api/get
            query:
              rId: "35382"

        """

    /// A folder with `project/apiprobe.yml` holding `text`; the command runs from the folder above it.
    static func withProject<R>(
        _ text: String = config, _ body: (_ folder: URL, _ project: URL) async throws -> R
    ) async throws -> R {
        let folder = try TemporaryFolder.make("record-command")
        let project = folder.appendingPathComponent("project", isDirectory: true)
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: project.appendingPathComponent("apiprobe.yml"))
        return try await body(folder, project)
    }

    /// Runs the binary (`CommandLineRunner` awaits it without holding a thread of the concurrency pool, which
    /// the in-process server needs to answer).
    static func run(_ arguments: [String], environment: [String: String] = [:], in directory: URL) async throws
        -> CommandResult
    {
        try await CommandLineRunner.run(arguments, environment: environment, in: directory)
    }

    static func contents(of folder: URL) -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[String(url.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1))] =
                    try? Data(contentsOf: url)
            }
        }
        return result
    }

    @Test func recordWritesBesideTheConfigThenReportsUnchangedThenChanged() async throws {
        try await RecipesServer.with { server in
            try await Self.withProject { folder, project in
                let environment = ["RECIPES_PORT": String(server.port)]
                let first = try await Self.run(
                    ["record", "--config", "project/apiprobe.yml", "--snapshots"], environment: environment, in: folder)
                #expect(first.status == 0, "\(first)")
                #expect(first.standardOutput.contains("new       project/Stubs/recipes/search.json  200"), "\(first)")
                #expect(first.standardOutput.contains("3 endpoints: 3 new, 0 changed, 0 unchanged, 0 failed"))
                #expect(
                    Self.contents(of: project).keys.sorted() == [
                        "Snapshots/recipes/get.schema.json", "Snapshots/recipes/search.schema.json",
                        "Stubs/recipes/get.json", "Stubs/recipes/search.empty.json", "Stubs/recipes/search.json",
                        "apiprobe.yml",
                    ])
                let before = Self.contents(of: project)

                // A later clock (a new recordedAt, were it written) is RecorderTests' case, with the recorder's
                // injected date; no sleeping here.
                let second = try await Self.run(
                    ["record", "--config", "project/apiprobe.yml", "--snapshots"], environment: environment, in: folder)
                #expect(second.status == 0, "\(second)")
                #expect(second.standardOutput.contains("3 endpoints: 0 new, 0 changed, 3 unchanged, 0 failed"))
                #expect(Self.contents(of: project) == before, "re-recording an unchanged API changed a byte")

                server.setDrifted(true)
                let third = try await Self.run(
                    ["record", "--config", "project/apiprobe.yml", "--only", "search"], environment: environment,
                    in: folder)
                #expect(third.status == 0, "\(third)")
                #expect(third.standardOutput.contains("changed   project/Stubs/recipes/search.json  200"), "\(third)")
                #expect(third.standardOutput.contains("  breaking /recipes/*/social_rank removed: was number"))
                #expect(third.standardOutput.contains("  30 values changed"))
                #expect(third.standardOutput.contains("1 endpoint: 0 new, 1 changed, 0 unchanged, 0 failed"))
                let after = Self.contents(of: project)
                #expect(after["Stubs/recipes/search.json"] != before["Stubs/recipes/search.json"])
                #expect(after["Stubs/recipes/get.json"] == before["Stubs/recipes/get.json"])
                #expect(after["Snapshots/recipes/search.schema.json"] == before["Snapshots/recipes/search.schema.json"])
            }
        }
    }

    @Test func anUnreachableHostExitsOneNamingTheEndpointAndURLAndWritesNothingForIt() async throws {
        try await Self.withProject { folder, project in
            // Port 1 on loopback: nothing listens, the connection is refused at once.
            let result = try await Self.run(
                ["record", "--config", "project/apiprobe.yml"], environment: ["RECIPES_PORT": "1"], in: folder)
            #expect(result.status == 1, "\(result)")
            #expect(
                result.standardOutput.contains(
                    "failed    search: cannot reach http://127.0.0.1:1/api/search?q=chicken"),
                "\(result)")
            #expect(result.standardOutput.contains("3 endpoints: 0 new, 0 changed, 0 unchanged, 3 failed"))
            #expect(Self.contents(of: project).keys.sorted() == ["apiprobe.yml"])
        }
    }

    @Test func anHTTPErrorStatusIsRecordedAndShownAsAWarningAndANonJSONNoteForSnapshots() async throws {
        let text = """
            api: recipes
            baseURL: http://127.0.0.1:${RECIPES_PORT}
            endpoints:
              - name: missing
                path: /api/get
                query:
                  rId: nope

            """
        try await RecipesServer.with { server in
            try await Self.withProject(text) { folder, project in
                let result = try await Self.run(
                    ["record", "--config", "project/apiprobe.yml", "--snapshots"],
                    environment: ["RECIPES_PORT": String(server.port)], in: folder)
                #expect(result.status == 0, "\(result)")
                #expect(result.standardOutput.contains("new       project/Stubs/recipes/missing.json  404"))
                // Warnings and notes on standard error, naming the fixture; the warning counted in the last line.
                #expect(
                    result.standardError.contains(
                        "warning: project/Stubs/recipes/missing.json: HTTP status 404 (recorded as it is)"),
                    "\(result)")
                #expect(
                    result.standardError.contains(
                        "note: project/Stubs/recipes/missing.json: snapshot skipped: status 404 is not a sample"))
                #expect(!result.standardOutput.contains("warning:") && !result.standardOutput.contains("note:"))
                #expect(result.standardOutput.hasSuffix("0 failed; 1 warning\n"), "\(result)")
                let fixture = try Exchange.load(from: project.appendingPathComponent("Stubs/recipes/missing.json"))
                #expect(fixture.response.status == 404)
            }
        }
    }

    @Test func anUnwritableFolderExitsTwoNamingItAndLeavesNoFile() async throws {
        let text = Self.config.replacingOccurrences(of: "stubs: Stubs", with: "stubs: blocked/Stubs")
        try await RecipesServer.with { server in
            try await Self.withProject(text) { folder, project in
                // A file where a folder should be: nothing can be created below it, even as root.
                try Data("a file".utf8).write(to: project.appendingPathComponent("blocked"))
                let result = try await Self.run(
                    ["record", "--config", "project/apiprobe.yml"], environment: ["RECIPES_PORT": String(server.port)],
                    in: folder)
                #expect(result.status == 2, "\(result)")
                #expect(result.standardError.contains("blocked/Stubs/recipes"), "\(result)")
                #expect(Self.contents(of: project).keys.sorted() == ["apiprobe.yml", "blocked"])
            }
        }
    }

    @Test func aBadConfigOrAnUnknownOnlyNameExitsTwo() async throws {
        try await Self.withProject { folder, _ in
            let missingVariable = try await Self.run(
                ["record", "--config", "project/apiprobe.yml"], in: folder)
            #expect(missingVariable.status == 2, "\(missingVariable)")
            #expect(missingVariable.standardError.contains("project/apiprobe.yml"), "\(missingVariable)")

            let unknown = try await Self.run(
                ["record", "--config", "project/apiprobe.yml", "--only", "serch"],
                environment: ["RECIPES_PORT": "1"], in: folder)
            #expect(unknown.status == 2, "\(unknown)")
            #expect(unknown.standardError.contains("--only serch"), "\(unknown)")

            let noFile = try await Self.run(["record", "--config", "nope.yml"], in: folder)
            #expect(noFile.status == 2, "\(noFile)")
            #expect(noFile.standardError.contains("nope.yml"), "\(noFile)")
        }
    }
}
