import APIProbeTestSupport
import Foundation
import RecipesServer
import Testing

/// Inputs that used to crash a command, hang it or end it with the wrong status or message: each now gets
/// exit status 2 and a message that names the file and place, or is skipped and counted.
@Suite("Bad input, as the built binary", .tags(.commandLine), .serialized, .hangGuard, .temporaryFolder)
struct BadInputCommandTests {
    func folder(_ files: [String: String]) throws -> URL {
        let directory = try TemporaryFolder.make("bad-input")
        for (name, text) in files {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
        return directory
    }

    static let healthConfig = """
        api: recipes
        baseURL: http://127.0.0.1:${RECIPES_PORT}
        endpoints:
          - name: health
            path: /api/health
            expect: {schema: false}
        """

    @Test func aTinyRateLimitIsBadInputNotATrap() async throws {
        let directory = try folder([
            "apiprobe.yml": "api: x\nrateLimit: 1e-10\nendpoints: [{name: a, url: \"http://127.0.0.1:1/a\"}]\n"
        ])
        for command in ["run", "record"] {
            let result = try await CommandLineRunner.run([command], in: directory)
            #expect(result.status == 2, "\(result)")
            #expect(
                result.standardError.contains(
                    "apiprobe.yml:2:12: rateLimit: expected requests per second per host, a number from 0.001 to "
                        + "100000, found \"1e-10\""), "\(result)")
        }
    }

    @Test func aHistoryLineThatCannotBeReadIsSkippedAndCountedNotFatal() async throws {
        try await RecipesServer.with { server in
            let digits = String(repeating: "7", count: 19)
            let directory = try folder([
                "apiprobe.yml": Self.healthConfig,
                "history.jsonl":
                    #"{"endpoints":{},"passed":true,"startedAt":"2026-11-22T18:00:00.\#(digits)Z","version":1}"#
                    + "\n{torn\n",
            ])
            for _ in 0..<2 {
                let result = try await CommandLineRunner.run(
                    ["run", "--history", "history.jsonl"], environment: ["RECIPES_PORT": String(server.port)],
                    in: directory)
                #expect(result.status == 0, "\(result)")
                #expect(
                    result.standardError
                        == "apiprobe run: warning: history.jsonl: skipped 1 damaged line (not a whole record, or "
                        + "longer than 1048576 bytes)\n", "\(result)")
            }
        }
    }

    @Test func aHistoryThatCannotBeOpenedShowsRunsUsageLine() async throws {
        try await RecipesServer.with { server in
            let directory = try folder(["apiprobe.yml": Self.healthConfig])
            let result = try await CommandLineRunner.run(
                ["run", "--history", "missing/history.jsonl"], environment: ["RECIPES_PORT": String(server.port)],
                in: directory)
            #expect(result.status == 2, "\(result)")
            let lines = result.standardError.split(separator: "\n").map(String.init)
            #expect(
                lines.first
                    == "Error: --history missing/history.jsonl: missing/history.jsonl: the folder missing does not "
                    + "exist; create it first (mkdir -p missing)")
            #expect(lines.dropFirst().first?.hasPrefix("Usage: apiprobe run [--config <config>]") == true, "\(result)")
            #expect(lines.last == "  See 'apiprobe run --help' for more information.")
        }
    }

    @Test func initOnAnExistingFileShowsInitsUsageLine() async throws {
        let directory = try folder(["apiprobe.yml": "api: x\n"])
        let result = try await CommandLineRunner.run(["init"], in: directory)
        #expect(result.status == 2, "\(result)")
        #expect(
            result.standardError
                == "Error: apiprobe.yml already exists; pass --force to replace it\n"
                + "Usage: apiprobe init [--path <path>] [--force]\n"
                + "  See 'apiprobe init --help' for more information.\n")
    }

    @Test func demoServeOnAPortInUseIsBadUsageWithAClearMessage() async throws {
        try await RecipesServer.with { server in
            let result = try await CommandLineRunner.run(["demo", "--serve", "--port", String(server.port)])
            #expect(result.status == 2, "\(result)")
            #expect(
                result.standardError.hasPrefix(
                    "Error: --port \(server.port): 127.0.0.1:\(server.port) is already in use; choose another port, "
                        + "or leave --port out for one the system picks\nUsage: apiprobe demo "), "\(result)")
        }
    }

    @Test(arguments: ["", "\n\n  \n"])
    func schemaDiffWithAnEmptyJSONLinesSideIsBadInput(_ empty: String) async throws {
        let directory = try folder(["empty.jsonl": empty, "one.json": #"{"id": 1}"#])
        for arguments in [["empty.jsonl", "one.json"], ["one.json", "empty.jsonl"]] {
            let result = try await CommandLineRunner.run(["schema", "diff"] + arguments, in: directory)
            #expect(result.status == 2, "\(result)")
            #expect(
                result.standardError
                    == "Error: empty.jsonl: expected at least one JSON sample (one a line), found no samples (an empty file)\n",
                "\(result)")
            #expect(result.standardOutput.isEmpty)
        }
    }

    @Test func invalidUTF8InASampleIsBadInputWithItsPosition() async throws {
        let directory = try TemporaryFolder.make("bad-input")
        try Data([0x7B, 0x0A, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D])  // {\n"a":"\xC3(" }
            .write(to: directory.appendingPathComponent("bad.json"))
        let result = try await CommandLineRunner.run(["schema", "infer", "bad.json"], in: directory)
        #expect(result.status == 2, "\(result)")
        #expect(
            result.standardError == "Error: bad.json:2:6: expected valid UTF-8 (RFC 8259), found byte 0xC3\n",
            "\(result)")
    }
}
