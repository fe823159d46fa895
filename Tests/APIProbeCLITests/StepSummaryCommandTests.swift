import APIProbeTestSupport
import Foundation
import RecipesServer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `apiprobe run` under GitHub Actions: the step summary.
@Suite("Step summary, as the built binary", .tags(.commandLine), .serialized, .hangGuard, .temporaryFolder)
struct StepSummaryCommandTests {
    func folder(_ files: [String: String]) throws -> URL {
        let directory = try TemporaryFolder.make("step-summary")
        for (name, text) in files {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
        return directory
    }

    /// Several rounds with `GITHUB_STEP_SUMMARY` set leave earlier steps' text and one report: the last
    /// round's replaces the ones before it.
    @Test func everyWritesTheStepSummaryOnceNotOnceARound() async throws {
        try await RecipesServer.with { server in
            // The server counts search requests as they arrive: one a round.
            let config = """
                api: recipes
                baseURL: http://127.0.0.1:${RECIPES_PORT}
                endpoints:
                  - {name: search, path: /api/search, query: {q: chicken}, expect: {schema: false}}
                """
            let directory = try folder(["apiprobe.yml": config, "summary.md": "earlier step\n"])
            let summary = directory.appendingPathComponent("summary.md")
            let process = Process()
            process.executableURL = CommandLineRunner.executable
            process.arguments = ["run", "--every", "50ms", "--report", "json=report.json"]
            process.currentDirectoryURL = directory
            var environment = ProcessInfo.processInfo.environment
            environment["RECIPES_PORT"] = String(server.port)
            environment["GITHUB_STEP_SUMMARY"] = summary.path
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            ChildProcesses.started(process)
            // Three rounds have started once the server has seen three searches.
            while server.knobs.requestsReceived < 3 && process.isRunning {
                try await Task.sleep(for: .milliseconds(5))
            }
            kill(process.processIdentifier, SIGTERM)
            let status = await CommandLineRunner.waitForExit(process)
            #expect(status == 0)
            let text = try String(contentsOf: summary, encoding: .utf8)
            #expect(text.hasPrefix("earlier step\n## ✅ apiprobe: 1 endpoint passed\n"), "\(text)")
            #expect(text.components(separatedBy: "## ✅ apiprobe").count == 2, "\(text)")
        }
    }
}
