import APIProbeTestSupport
import ContractTesting
import Foundation
import HTTPFixtures
import RecipesServer
import Testing

/// `apiprobe record --snapshots`, `apiprobe snapshot update` and ContractTesting's record mode write the
/// snapshot of the same fixtures byte for byte alike: one grouping rule (HTTPFixtures), one snapshot rule
/// (JSONShape).
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder)
struct OneSnapshotPipelineTests {
    @Test func recordUpdateAndContractTestingWriteByteIdenticalSnapshots() async throws {
        try await RecipesServer.with { server in
            try await RecordCommandTests.withProject { folder, project in
                // 1. record --snapshots: the fixtures and their snapshots.
                let recorded = try await CommandLineRunner.run(
                    ["record", "--config", "project/apiprobe.yml", "--snapshots"],
                    environment: ["RECIPES_PORT": String(server.port)], in: folder)
                #expect(recorded.status == 0, "\(recorded)")
                let stubs = project.appendingPathComponent("Stubs")
                let byRecord = project.appendingPathComponent("Snapshots")

                // 2. snapshot update over the same fixtures, into a folder of its own.
                let byUpdate = folder.appendingPathComponent("update-snapshots")
                let updated = try await CommandLineRunner.run(
                    ["snapshot", "update", "--stubs", stubs.path, "--snapshots", byUpdate.path], in: folder)
                #expect(updated.status == 0, "\(updated)")

                // 3. ContractTesting's record mode, as a test target runs it.
                let byTests = folder.appendingPathComponent("test-snapshots")
                let store = FixtureStore(directory: stubs)
                for endpoint in ["recipes/search", "recipes/get"] {
                    let message = verifySnapshotMatch(
                        .everyFixture(of: endpoint, in: store), record: .missing, snapshots: byTests
                    ).message
                    #expect(message?.hasPrefix("Recorded missing schema snapshot") == true, "\(message ?? "nil")")
                }

                let files = ["recipes/search.schema.json", "recipes/get.schema.json"]
                for file in files {
                    let record = try Data(contentsOf: byRecord.appendingPathComponent(file))
                    let update = try Data(contentsOf: byUpdate.appendingPathComponent(file))
                    let tests = try Data(contentsOf: byTests.appendingPathComponent(file))
                    #expect(record == update, "\(file): record and snapshot update differ")
                    #expect(record == tests, "\(file): record and ContractTesting differ")
                }
                // Inference invents no enum on the way (the recipes have string fields with few values).
                let search = try String(
                    contentsOf: byTests.appendingPathComponent("recipes/search.schema.json"), encoding: .utf8)
                #expect(!search.contains("\"enum\""))
            }
        }
    }
}
