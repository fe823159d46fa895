import APIProbeShared
import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

/// `contract verify --spec`: the sample app's contract against the recipes description and edits of it, and every
/// real vendor's collection against its own description, where the contract is then edited in chosen ways and
/// the verdicts must change exactly there.
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder, .serialized)
struct ContractSpecTests {
    static let recipesSpec = OpenAPICommandTests.repository.appendingPathComponent("openapi/recipes.yaml")

    @Test func theSampleAppAgainstTheRecipesDescriptionAndEditsOfIt() async throws {
        let folder = try ContractCommandTests.project()
        let export = try await ContractCommandTests.export(in: folder)
        try #require(export.status == 0, "\(export)")
        let original = try String(contentsOf: Self.recipesSpec, encoding: .utf8)
        func verify(_ spec: String) async throws -> CommandResult {
            try Data(spec.utf8).write(to: folder.appendingPathComponent("spec.yaml"))
            return try await CommandLineRunner.run(
                ["contract", "verify", "--spec", "spec.yaml", "Contracts"], in: folder)
        }
        var result = try await verify(original)
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.hasSuffix("spec.yaml: 1 of 1 consumer versions pass; 6 of 6 interactions pass\n"))

        // A member the app reads, renamed: every interaction that reads it breaks, naming it.
        result = try await verify(original.replacingOccurrences(of: "social_rank", with: "rank"))
        #expect(result.status == 1)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("      /recipe/social_rank: GET /api/get 200: removed: was number"), "\(result)")
        #expect(lines.contains("      /recipes/*/social_rank: GET /api/search 200: removed: was number"), "\(result)")
        #expect(lines.contains("spec.yaml: 0 of 1 consumer versions pass; 2 of 6 interactions pass"), "\(result)")

        // Retyped: `recipe_id` an integer.
        let retyped = original.replacingOccurrences(
            of: "recipe_id:\n          type: string", with: "recipe_id:\n          type: integer")
        #expect(retyped != original)
        result = try await verify(retyped)
        #expect(result.status == 1)
        #expect(
            result.standardOutput.contains("/recipe/recipe_id: GET /api/get 200: type-changed: string → integer"),
            "\(result)")

        // The error body's member renamed: the app reads no error body, so nothing breaks.
        let unread = original.replacingOccurrences(of: "required: [message]", with: "required: [detail]")
            .replacingOccurrences(of: "            message:\n", with: "            detail:\n")
        #expect(unread != original)
        result = try await verify(unread)
        #expect(result.status == 0, "\(result)")

        // An operation the description no longer has, and a status it does not declare.
        result = try await verify(
            original.replacingOccurrences(of: "  /api/get:", with: "  /api/recipe:").replacingOccurrences(
                of: "\"404\":\n                  description: No recipe has this id.",
                with: "\"410\":\n                  description: No recipe has this id."))
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("      no operation for GET /api/get in spec.yaml"), "\(result)")

        // Bad usage and bad input: exit 2, named.
        result = try await CommandLineRunner.run(
            ["contract", "verify", "--spec", "spec.yaml", "--provider", "http://127.0.0.1:9", "Contracts"], in: folder)
        #expect(result.status == 2)
        #expect(result.standardError.contains("Give --provider or --spec, not both."), "\(result)")
        try Data("openapi: 3.1.0\npaths: [".utf8).write(to: folder.appendingPathComponent("broken.yaml"))
        result = try await CommandLineRunner.run(
            ["contract", "verify", "--spec", "broken.yaml", "Contracts"], in: folder)
        #expect(result.status == 2)
        #expect(result.standardError.contains("broken.yaml"), "\(result)")
    }

    /// Each vendor's collection (no vendor named here), exported as read whole, against the vendor's own
    /// description: the baseline verdicts are whatever the examples and the description say of each other (the
    /// examples of Postman and of the description disagree in places); then one top-level member read by each of a
    /// seeded sample of interactions is renamed in the contract, and the verdicts must change exactly there: one
    /// `removed` break at the new name, the breaks below the old name gone, every other interaction unchanged.
    @Test(.offThePool, .tags(.realMaterial)) func realDescriptionsJudgeEditsOfTheContractExactlyWhereTheyAre()
        async throws
    {
        let vendors = RealCollections.vendors.filter { $0.collection != nil && $0.specs.count == 1 }
        guard !vendors.isEmpty else {
            withKnownIssue("the vendors' files are not here: put them in shared/real-collections beside the checkout") {
                Issue.record("no real collections")
            }
            return
        }
        let folder = try TemporaryFolder.make("contract-spec")
        var edited = 0
        var interactions = 0
        for vendor in vendors {
            guard let collection = vendor.collection else { continue }
            var arguments = ["import", "postman", collection.path, "--into", "Stubs/\(vendor.name)", "--quiet"]
            if let environment = vendor.environment { arguments += ["--environment", environment.path] }
            let imported = try await CommandLineRunner.run(arguments, in: folder)
            try #require(imported.status == 0, "\(imported)")
            let export = try await CommandLineRunner.run(
                [
                    "contract", "export", "--provider", vendor.name, "--consumer", "App", "--consumer-version", "1",
                    "--reads-everything", "--output", "C-\(vendor.name)", "--quiet",
                ], in: folder)
            try #require(export.status == 0, "\(export)")
            let contractURL = folder.appendingPathComponent("C-\(vendor.name)/App/1.json")
            let spec = vendor.specs[0].path
            let baseline = try await Self.breaks(spec: spec, contract: "C-\(vendor.name)", in: folder)
            interactions += baseline.count

            // Rename one top-level read member in every third interaction that reads one.
            var document = try JSONValue(parsing: Data(contentsOf: contractURL))
            var renamed: [String: (old: String, new: String)] = [:]
            guard case .object(var root) = document,
                let listIndex = root.firstIndex(where: { $0.key == "interactions" }),
                case .array(var list) = root[listIndex].value
            else {
                Issue.record("\(contractURL.path): not a contract")
                continue
            }
            for index in list.indices where index % 3 == 0 {
                guard case .object(var interaction) = list[index],
                    case .string(let name)? = interaction.first(where: { $0.key == "name" })?.value,
                    let responseIndex = interaction.firstIndex(where: { $0.key == "response" }),
                    case .object(var response) = interaction[responseIndex].value,
                    let readsIndex = response.firstIndex(where: { $0.key == "reads" }),
                    case .object(var reads) = response[readsIndex].value,
                    let propertiesIndex = reads.firstIndex(where: { $0.key == "properties" }),
                    case .object(var properties) = reads[propertiesIndex].value, let first = properties.first
                else { continue }
                let new = first.key + "_renamed_by_test"
                properties[0] = (new, first.value)
                reads[propertiesIndex].value = .object(properties)
                if let requiredIndex = reads.firstIndex(where: { $0.key == "required" }),
                    case .array(let names) = reads[requiredIndex].value
                {
                    reads[requiredIndex].value = .array(names.map { $0 == .string(first.key) ? .string(new) : $0 })
                }
                response[readsIndex].value = .object(reads)
                interaction[responseIndex].value = .object(response)
                list[index] = .object(interaction)
                renamed[name] = (first.key, new)
            }
            root[listIndex].value = .array(list)
            document = .object(root)
            try document.serialized(pretty: true, sortedKeys: true).write(to: contractURL)
            let after = try await Self.breaks(spec: spec, contract: "C-\(vendor.name)", in: folder)
            #expect(Set(after.keys) == Set(baseline.keys))
            for (name, before) in baseline {
                let now = after[name] ?? []
                // An interaction the description has no operation or status for is judged before its reading.
                let unmatched = before.contains { $0.member == nil }
                guard let (old, new) = renamed[name], !unmatched else {
                    #expect(now == before, "\(vendor.name) \(name): changed although not edited")
                    continue
                }
                edited += 1
                let oldPointer = "/" + JSONPointer.escape(old)
                let kept = before.filter { $0.member != oldPointer && !($0.member ?? "").hasPrefix(oldPointer + "/") }
                let added = now.filter { !kept.contains($0) }
                #expect(
                    added.count == 1 && added[0].member == "/" + JSONPointer.escape(new)
                        && added[0].message.contains(": removed: "),
                    "\(vendor.name) \(name): \(added)")
                #expect(Set(kept).isSubset(of: Set(now)), "\(vendor.name) \(name)")
            }
        }
        #expect(edited >= 30, "\(edited) edited interactions of \(interactions)")
        print(
            "ContractSpecTests: \(interactions) interactions of \(vendors.count) vendors against their descriptions; \(edited) edited, each judged exactly"
        )
    }

    struct Break: Decodable, Hashable {
        var member: String?
        var message: String
    }

    /// `contract verify --spec`'s breaks, by interaction.
    static func breaks(spec: String, contract: String, in folder: URL) async throws -> [String: [Break]] {
        struct Report: Decodable {
            struct Contract: Decodable { var interactions: [Interaction] }
            struct Interaction: Decodable {
                var name: String
                var breaks: [Break]
            }
            var contracts: [Contract]
        }
        let result = try await CommandLineRunner.run(
            ["contract", "verify", "--spec", spec, "--format", "json", contract], in: folder)
        #expect(result.status == 0 || result.status == 1, "\(result)")
        let report = try JSONDecoder().decode(Report.self, from: Data(result.standardOutput.utf8))
        return Dictionary(
            report.contracts.flatMap(\.interactions).map { ($0.name, $0.breaks) }, uniquingKeysWith: { $1 })
    }
}
