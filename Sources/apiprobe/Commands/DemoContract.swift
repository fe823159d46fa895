import ConsumerContracts
import Foundation
import HTTPFixtures
import JSONShape
import ProbeClient
import ProbeReports
import RecipesServer

extension DemoRun {
    /// The sample app's usage manifests, byte for byte `Snapshots/recipes/*.usage.json` (a test compares them):
    /// what `RecipesAPI`'s models read, as its contract tests recorded it, so that the demo can export the app's
    /// contract wherever the binary runs.
    static let usageManifests: [(endpoint: String, text: String)] = [
        (
            "recipes/get",
            #"""
            {
              "apiprobeVersion": "0.1.0",
              "paths": [
                "/recipe",
                "/recipe/f2f_url",
                "/recipe/image_url",
                "/recipe/ingredients",
                "/recipe/ingredients/*",
                "/recipe/publisher",
                "/recipe/publisher_url",
                "/recipe/recipe_id",
                "/recipe/social_rank",
                "/recipe/source_url",
                "/recipe/title"
              ]
            }

            """#
        ),
        (
            "recipes/search",
            #"""
            {
              "apiprobeVersion": "0.1.0",
              "paths": [
                "/count",
                "/recipes",
                "/recipes/*",
                "/recipes/*/f2f_url",
                "/recipes/*/image_url",
                "/recipes/*/publisher",
                "/recipes/*/publisher_url",
                "/recipes/*/recipe_id",
                "/recipes/*/social_rank",
                "/recipes/*/source_url",
                "/recipes/*/title"
              ]
            }

            """#
        ),
    ]

    /// What `apiprobe contract export --consumer RecipesApp --consumer-version demo --pact pacts` does on the demo's
    /// folder (the app's usage manifests written first): the contract, written and summed up as the command does.
    func exportContract() throws -> ConsumerContract {
        let snapshots = folder.appendingPathComponent("Snapshots")
        for manifest in Self.usageManifests {
            try AtomicFile.write(
                Data(manifest.text.utf8), to: snapshots.appendingPathComponent(manifest.endpoint + ".usage.json"),
                displayName: "Snapshots/\(manifest.endpoint).usage.json")
        }
        let store = FixtureStore(directory: folder.appendingPathComponent("Stubs"))
        var builder = ContractBuilder(store: store) { (key: String) throws(InputError) -> UsageManifest? in
            try UsageManifest.inFolder(snapshots, label: "Snapshots", endpoint: key)
        }
        let contract = try builder.contract(consumer: "RecipesApp", version: "demo", api: "recipes")
        let pact = PactFile(contract)
        let contractPath = "Contracts/RecipesApp/demo.json"
        let pactPath = "pacts/" + PactFile.fileName(for: contract)
        try AtomicFile.write(
            contract.encoded(), to: folder.appendingPathComponent(contractPath), displayName: contractPath,
            inside: folder)
        try AtomicFile.write(
            pact.data, to: folder.appendingPathComponent(pactPath), displayName: pactPath, inside: folder)
        out.write(
            ContractExportCommand.summary(
                contract, written: [contractPath, pactPath], leftOut: builder.notes.count,
                approximations: pact.approximations.count))
        return contract
    }

    /// What `apiprobe contract verify --provider URL Contracts` does, printed as the command prints it; `true` when
    /// every interaction passed.
    func verifyContract(_ contract: ConsumerContract, against server: RecipesServer) async throws -> Bool {
        let loader = HTTPLoader(maximumConnectionsPerHost: 1)
        defer { loader.close() }
        let verdict = try await ProviderVerifier(provider: server.baseURL).verify(
            contract, file: "Contracts/RecipesApp/demo.json", loader: loader)
        out.write(ContractReport.render([verdict], as: .text, against: server.baseURL.absoluteString))
        return verdict.passed
    }
}
