import APIProbeTestSupport
import FixtureImport
import Foundation
import HTTPFixtures
import Testing

/// `apiprobe import postman` on a collection whose variables are empty and whose titles do not follow endpoints,
/// beside the API's OpenAPI description: naming by operation, the summary line, `--strict`, `--only`, and
/// `snapshot check --only` over the spec's snapshots.
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder)
struct ImportPostmanSpecTests {
    static let collection = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FixtureImportTests/Fixtures/stores.postman_collection.json")
    static let spec = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/stores.yaml")

    /// The JSON files below a folder (ImportPostmanTests' one rule).
    func files(in folder: URL) -> [String] { ImportPostmanTests.files(in: folder) }

    /// Operation IDs with dots (`stores.get`, as a payments vendor writes them) name fixtures and snapshots by the
    /// one rule, so each operation stays its own endpoint: before, `stores.get.json` and `stores.create.json` were
    /// one endpoint `stores`, nothing was compared, and `snapshot check` asked for a `stores.schema.json`
    /// (issue 37, item 1).
    @Test func dottedOperationIDsStayOneEndpointEach() async throws {
        let folder = try TemporaryFolder.make()
        let text = try String(contentsOf: Self.spec, encoding: .utf8)
            .replacingOccurrences(of: "operationId: listMerchantStores", with: "operationId: stores.list")
            .replacingOccurrences(of: "operationId: createStore", with: "operationId: stores.create")
            .replacingOccurrences(of: "operationId: getStore", with: "operationId: stores.get")
        let spec = folder.appendingPathComponent("stores.yaml")
        try Data(text.utf8).write(to: spec)
        let imported = try await CommandLineRunner.run(["openapi", "import", spec.path], in: folder)
        #expect(imported.status == 0, "\(imported)")
        let result = try await CommandLineRunner.run(
            ["import", "postman", Self.collection.path, "--spec", spec.path], in: folder)
        #expect(result.status == 0, "\(result)")
        #expect(
            files(in: folder.appendingPathComponent("Stubs")) == [
                "stores/get-a-list-of-stores.json", "stores/stores_create.json", "stores/stores_get.2.json",
                "stores/stores_get.json", "stores/stores_list.json",
            ])
        let check = try await CommandLineRunner.run(["snapshot", "check"], in: folder)
        #expect(
            check.standardOutput.contains("ok      Snapshots/stores/stores_list.schema.json (1 samples)"), "\(check)")
        #expect(check.standardOutput.contains("Snapshots/stores/stores_get.schema.json:\n"), "\(check)")
        #expect(!check.standardOutput.contains("Snapshots/stores/stores.schema.json"), "\(check)")
        #expect(!check.standardError.contains("Snapshots/stores/stores.schema.json"), "\(check)")
        let only = try await CommandLineRunner.run(
            ["snapshot", "check", "--only", "GET /merchants/{merchantId}/stores/{storeId}"], in: folder)
        #expect(only.status == 0, "\(only)")
        #expect(only.standardOutput.contains("Snapshots/stores/stores_get.schema.json:\n"), "\(only)")
    }

    @Test func aSpecNamesFixturesAsItsSnapshotsSoTheyLineUp() async throws {
        let folder = try TemporaryFolder.make()
        let imported = try await CommandLineRunner.run(["openapi", "import", Self.spec.path], in: folder)
        #expect(imported.status == 0, "\(imported)")
        let result = try await CommandLineRunner.run(
            ["import", "postman", Self.collection.path, "--spec", Self.spec.path], in: folder)
        #expect(result.status == 0, "\(result)")
        #expect(
            files(in: folder.appendingPathComponent("Stubs")) == [
                "stores/createStore.json", "stores/get-a-list-of-stores.json", "stores/getStore.2.json",
                "stores/getStore.json", "stores/listMerchantStores.json",
            ])
        // The fixtures and one summary line that counts the warnings on standard output; the warnings and notes
        // on standard error (issue 37, item 5).
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            lines.last
                == "\(Self.collection.path): 5 requests, 5 fixtures (5 written, 0 unchanged), 0 skipped, 5 warnings",
            "\(result)")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("wrote ") }, "\(lines)")
        let diagnostics = result.standardError.split(separator: "\n").map(String.init)
        #expect(diagnostics.filter { $0.hasPrefix("warning: \(Self.collection.path): ") }.count == 5, "\(diagnostics)")
        #expect(
            diagnostics.contains(
                "note: \(Self.collection.path): dynamic variables given fixed values (PostmanCollection.dynamicVariableValues): {{$guid}}, {{$randomInt}}"
            ))
        #expect(!result.standardOutput.contains("sk_test_planted"))

        // Fixtures and spec snapshots pair by name: the stores the spec knows are checked, the one it does not
        // is missing; --only checks the part a team uses.
        let check = try await CommandLineRunner.run(["snapshot", "check"], in: folder)
        #expect(check.status == 1, "\(check)")
        // A spec's snapshot says what the API may send: a sample without the optional items' properties conforms
        // (it is no "removed"), while the saved example's `{{$isoTimestamp}}` is text, not a date-time.
        #expect(
            check.standardOutput.contains("ok      Snapshots/stores/listMerchantStores.schema.json (1 samples)"),
            "\(check)")
        #expect(
            check.standardOutput.contains(
                "Snapshots/stores/getStore.schema.json:\n  warning  /createdAt format-changed"),
            "\(check)")
        #expect(check.standardOutput.contains("missing Stubs/") == false)
        #expect(check.standardOutput.contains("no snapshot for stores/get-a-list-of-stores"), "\(check)")
        let only = try await CommandLineRunner.run(
            ["snapshot", "check", "--only", "GET /merchants/{merchantId}/stores/{storeId}"], in: folder)
        #expect(only.status == 0, "\(only)")
        #expect(only.standardOutput.contains("Snapshots/stores/getStore.schema.json:\n"), "\(only)")
        #expect(!only.standardOutput.contains("get-a-list-of-stores"), "\(only)")
        #expect(!only.standardOutput.contains("createStore"), "\(only)")
        let byName = try await CommandLineRunner.run(["snapshot", "check", "--only", "stores/getStore"], in: folder)
        #expect(byName.status == 0, "\(byName)")
        let none = try await CommandLineRunner.run(["snapshot", "check", "--only", "/payments"], in: folder)
        #expect(none.status == 2, "\(none)")
        #expect(none.standardError.contains("expected an endpoint that --only /payments selects"), "\(none)")

        // The placeholder kept for an empty path variable is no parameter violation.
        let spec = try await CommandLineRunner.run(
            ["openapi", "check", Self.spec.path, "--stubs", "Stubs/stores", "--format", "json"], in: folder)
        #expect(!spec.standardOutput.contains("/path/storeId"), "\(spec)")
    }

    @Test func strictFailsOnAWarningAndWritesNothing() async throws {
        let folder = try TemporaryFolder.make()
        let result = try await CommandLineRunner.run(
            ["import", "postman", Self.collection.path, "--strict"], in: folder)
        #expect(result.status == 2, "\(result)")
        #expect(
            result.standardError.contains(
                "\(Self.collection.path): expected an import without warnings (--strict), found 4 warnings; nothing written"
            ), "\(result)")
        #expect(files(in: folder).isEmpty)

        let fixed = try await CommandLineRunner.run(
            [
                "import", "postman", Self.collection.path, "--strict", "--only", "Companies", "--var",
                "YOUR_ACCOUNT=YOUR_COMPANY_ACCOUNT",
            ], in: folder)
        #expect(fixed.status == 0, "\(fixed)")
        #expect(files(in: folder.appendingPathComponent("Stubs")) == ["stores-trouble/get-a-list-of-stores.json"])
        // The summary counts the selection against the whole (issue 37, item 5).
        #expect(fixed.standardOutput.contains(": 1 of 5 requests selected, 1 fixture (1 written"), "\(fixed)")
    }

    @Test func onlyThatSelectsNothingIsAnError() async throws {
        let folder = try TemporaryFolder.make()
        let result = try await CommandLineRunner.run(
            ["import", "postman", Self.collection.path, "--only", "/payments"], in: folder)
        #expect(result.status == 2, "\(result)")
        #expect(
            result.standardError.contains(
                "expected a request that --only /payments selects (a folder name, a path prefix or a template), found none of the collection's 5 requests"
            ), "\(result)")
        let har = try await CommandLineRunner.run(["import", "har", "x.har", "--only", "Stores"], in: folder)
        #expect(har.status == 2, "\(har)")
    }
}
