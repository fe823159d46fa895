import APIProbeTestSupport
import Foundation
import Testing

@Suite(.tags(.commandLine))
struct CommandLineBasicsTests {
    @Test func versionPrintsTheVersionAndExitsZero() async throws {
        let result = try await CommandLineRunner.run(["--version"])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0")
    }

    @Test func unknownOptionIsBadUsage() async throws {
        let result = try await CommandLineRunner.run(["--no-such-option"])
        #expect(result.status == 2, "\(result)")
        #expect(result.standardError.contains("no-such-option"))
    }
}
