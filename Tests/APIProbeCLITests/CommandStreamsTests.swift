import APIProbeTestSupport
import Foundation
import RecipesServer
import Testing

/// Results on stdout, diagnostics on stderr, for every command (issue 37, item 5): each leaf command `apiprobe --help`
/// lists runs once, on inputs that make it warn or note where it can, with the streams apart. No line of its
/// standard output is a warning, a note, an error or a skipped item, and the diagnostics the inputs cause are on
/// standard error. A command added to the tool without a case here fails the test.
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder, .serialized)
struct CommandStreamsTests {
    /// How a line of diagnostics begins; none may be on standard output.
    static let diagnosticPrefixes = ["warning:", "note:", "error:", "Error:", "skipped"]

    /// The leaf commands, by `--help`'s SUBCOMMANDS sections, recursively (`snapshot check`, …).
    static func leafCommands(_ path: [String] = []) async throws -> [String] {
        let help = try await CommandLineRunner.run(path + ["--help"])
        guard let start = help.standardOutput.range(of: "SUBCOMMANDS:\n") else { return [path.joined(separator: " ")] }
        var names: [String] = []
        for line in help.standardOutput[start.upperBound...].split(separator: "\n") {
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first else {
                if !line.hasPrefix(" ") { break }
                continue
            }
            if name == "See" { break }
            names.append(String(name))
        }
        var leaves: [String] = []
        for name in names { leaves += try await leafCommands(path + [name]) }
        return leaves
    }

    @Test func everyCommandKeepsResultsOnStdoutAndDiagnosticsOnStderr() async throws {
        let folder = try ContractCommandTests.project()
        let repository = OpenAPICommandTests.repository
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("openapi"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: repository.appendingPathComponent("openapi/recipes.yaml"),
            to: folder.appendingPathComponent("openapi/recipes.yaml"))
        // A second version of the description: one response member renamed.
        let spec = try String(contentsOf: folder.appendingPathComponent("openapi/recipes.yaml"), encoding: .utf8)
        try Data(spec.replacingOccurrences(of: "social_rank", with: "rank").utf8)
            .write(to: folder.appendingPathComponent("openapi/recipes-2.yaml"))
        // A HAR with a request that got no answer (skipped), and a Postman collection with an undefined variable (a
        // warning).
        try Data(Self.har.utf8).write(to: folder.appendingPathComponent("session.har"))
        try Data(Self.postman.utf8).write(to: folder.appendingPathComponent("collection.json"))

        try await RecipesServer.with { server in
            let live = folder.appendingPathComponent("live")
            try FileManager.default.createDirectory(at: live, withIntermediateDirectories: true)
            try Data(
                """
                api: recipes
                baseURL: \(server.baseURL.absoluteString)
                endpoints:
                  - name: search
                    path: /api/search
                    query: {q: chicken}
                    expect: {status: 200}
                  - name: missing
                    path: /api/get
                    query: {rId: "0"}
                    expect: {status: 200}

                """.utf8
            ).write(to: live.appendingPathComponent("apiprobe.yml"))
            let base = server.baseURL.absoluteString
            // Each leaf command: its arguments, where it runs, and the diagnostic its inputs cause on stderr.
            let cases: [String: (arguments: [String], in: URL, stderr: String?)] = [
                "demo": (["demo", "--no-keep"], folder, nil),
                "run": (["run", "--config", "apiprobe.yml", "--history", "history.jsonl"], live, nil),
                "init": (["init", "--path", "starter.yml"], folder, nil),
                "record": (["record", "--config", "apiprobe.yml"], live, nil),
                "snapshot check": (["snapshot", "check"], folder, "skipped"),
                "snapshot update": (["snapshot", "update", "--snapshots", "Snapshots-2"], folder, "skipped"),
                "schema infer": (["schema", "infer", "Stubs/recipes/get.json"], folder, nil),
                "schema diff": (
                    ["schema", "diff", "Snapshots/recipes/get.schema.json", "Snapshots/recipes/search.schema.json"],
                    folder, nil
                ),
                "schema validate": (
                    ["schema", "validate", "Snapshots/recipes/get.schema.json", "Stubs/recipes/get.json"], folder, nil
                ),
                "import har": (["import", "har", "session.har", "--into", "Imported/har"], folder, "skipped"),
                "import postman": (
                    ["import", "postman", "collection.json", "--into", "Imported/postman"], folder, "warning:"
                ),
                "openapi import": (
                    ["openapi", "import", "openapi/recipes.yaml", "--api", "recipes", "--snapshots", "FromSpec"],
                    folder, nil
                ),
                "openapi check": (["openapi", "check", "openapi/recipes.yaml", "--stubs", "Stubs"], folder, nil),
                "openapi diff": (["openapi", "diff", "openapi/recipes.yaml", "openapi/recipes-2.yaml"], folder, nil),
                "openapi export": (["openapi", "export", "--stubs", "Stubs/recipes"], folder, nil),
                "status-page": (
                    ["status-page", "--history", "live/history.jsonl", "--output", "site"], folder, nil
                ),
                "contract export": (
                    ["contract", "export", "--consumer", "App", "--consumer-version", "1", "--reads-everything"],
                    folder, nil
                ),
                "contract verify": (["contract", "verify", "--provider", base, "Contracts"], folder, nil),
            ]
            let leaves = try await Self.leafCommands()
            #expect(Set(leaves) == Set(cases.keys).union(["serve"]), "\(leaves.sorted())")
            // In the order the help lists them (run before status-page, contract export before verify).
            for leaf in leaves where leaf != "serve" {
                guard let (arguments, directory, expected) = cases[leaf] else { continue }
                let result = try await CommandLineRunner.run(arguments, in: directory)
                #expect([0, 1].contains(result.status), "\(leaf): \(result)")
                Self.expectStreamsApart(leaf, result.standardOutput, result.standardError, expected: expected)
            }
        }

        // serve runs until stopped: its banner on stdout, each request's log line on stderr.
        let server = try RunningCommand(["serve", "--stubs", folder.appendingPathComponent("Stubs/recipes").path])
        let banner = try await server.waitForOutput(containing: "Stop with Ctrl-C.")
        #expect(try await server.stop() == 0)
        Self.expectStreamsApart("serve", banner, server.standardError, expected: nil)
    }

    static func expectStreamsApart(_ leaf: String, _ output: String, _ errors: String, expected: String?) {
        let misplaced = output.split(separator: "\n").filter { line in
            diagnosticPrefixes.contains { line.hasPrefix($0) }
        }
        #expect(misplaced.isEmpty, "\(leaf): diagnostics on stdout: \(misplaced)")
        if let expected {
            #expect(errors.contains(expected), "\(leaf): expected \(expected) on stderr, got: \(errors)")
        }
    }

    static let har = #"""
        {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
          "startedDateTime": "2026-01-01T00:00:00Z", "time": 1,
          "request": {"method": "GET", "url": "https://api.example.com/v1/items", "httpVersion": "HTTP/1.1",
            "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
          "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": "application/json"}], "cookies": [],
            "content": {"size": 5, "mimeType": "application/json", "text": "{oops"}, "redirectURL": "",
            "headersSize": -1, "bodySize": -1},
          "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}},
         {"startedDateTime": "2026-01-01T00:00:01Z", "time": 1,
          "request": {"method": "GET", "url": "https://api.example.com/v1/gone", "httpVersion": "HTTP/1.1",
            "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
          "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
            "content": {"size": 0, "mimeType": ""}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
          "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}]}}
        """#

    static let postman = #"""
        {"info": {"name": "t", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
         "item": [{"name": "Get item", "request": {"method": "GET", "url": "https://api.example.com/v1/{{missing}}/items"},
           "response": [{"name": "ok", "code": 200, "header": [{"key": "Content-Type", "value": "application/json"}],
             "body": "{\"a\": 1}",
             "originalRequest": {"method": "GET", "url": "https://api.example.com/v1/{{missing}}/items"}}]}]}
        """#
}
